from django.urls import path

from accounts.web import views

urlpatterns = [
    path("sign-in/", views.sign_in, name="sign-in"),
    path("sign-out/", views.sign_out, name="sign-out"),
    path("register/", views.register, name="register"),
    path("language/", views.language, name="language"),
]
