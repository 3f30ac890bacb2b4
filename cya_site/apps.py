from django.apps import AppConfig


class CyaSiteConfig(AppConfig):
    name = "cya_site"

    def ready(self) -> None:
        """Django's security checks count the site's middleware as Django's own
        (cya_site.middleware)."""
        from cya_site import middleware

        middleware.count_in_security_checks()
