from django.apps import AppConfig


class CyaSiteConfig(AppConfig):
    name = "cya_site"

    def ready(self) -> None:
        """Django's security checks count the site's middleware as Django's own
        (cya_site.middleware); every database connection's queries are timed for the
        request running them (cya_site.tracing)."""
        from django.db.backends.signals import connection_created

        from cya_site import middleware, tracing

        middleware.count_in_security_checks()
        connection_created.connect(tracing.time_queries, dispatch_uid="cya_site.time_queries")
