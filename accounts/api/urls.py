from accounts.api.account import AccountViewSet
from accounts.api.views import AuthViewSet, TokenViewSet
from cya_site.routes import Router

router = Router()
router.register("auth", AuthViewSet, basename="auth")
router.register("account", AccountViewSet, basename="account")
router.register("tokens", TokenViewSet, basename="token")

urlpatterns = router.urls
