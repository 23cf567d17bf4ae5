from django.urls import URLPattern

app_name = "coupons"
urlpatterns: list[URLPattern] = []
