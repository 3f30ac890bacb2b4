from django.urls import path

from bots.web import play, views
from cya_site import routes as _routes  # noqa: F401 - registers the <id:...> converter

urlpatterns = [
    path("ladder/", views.ladder, name="ladder"),
    path("play/", play.lobby, name="play"),
    path("play/<id:pk>/join/", play.join, name="play-join"),
]
