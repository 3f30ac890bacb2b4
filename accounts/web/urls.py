from django.urls import path

from accounts.web import account, recovery, views

urlpatterns = [
    path("sign-in/", views.sign_in, name="sign-in"),
    path("sign-out/", views.sign_out, name="sign-out"),
    path("register/", views.register, name="register"),
    path("language/", views.language, name="language"),
    path("password-reset/", recovery.ResetRequestView.as_view(), name="password-reset"),
    path("password-reset/sent/", recovery.ResetSentView.as_view(), name="password-reset-sent"),
    path(
        "password-reset/<uidb64>/<token>/",
        recovery.ResetConfirmView.as_view(),
        name="password_reset_confirm",  # the name Django's reset mail links to
    ),
    path("password-reset/done/", recovery.ResetDoneView.as_view(), name="password-reset-done"),
    path("account/", account.account, name="account"),
    path("account/password/", account.password, name="account-password"),
    path("account/email/", account.email, name="account-email"),
    path("account/email/confirm/<str:token>/", account.email_confirm, name="email-confirm"),
    path("account/data/", account.data, name="account-data"),
    path("account/delete/", account.delete, name="account-delete"),
]
