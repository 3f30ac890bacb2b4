from rest_framework.routers import SimpleRouter

from accounts.api.views import AuthViewSet, TokenViewSet

router = SimpleRouter()
router.register("auth", AuthViewSet, basename="auth")
router.register("tokens", TokenViewSet, basename="token")

urlpatterns = router.urls
