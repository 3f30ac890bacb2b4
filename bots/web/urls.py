from django.urls import path

from bots.web import views

urlpatterns = [
    path("ladder/", views.ladder, name="ladder"),
]
