from django.urls import include, path

urlpatterns = [
    path("", include("introspect.urls")),
    path("ledger/", include("ledger.urls")),
]
