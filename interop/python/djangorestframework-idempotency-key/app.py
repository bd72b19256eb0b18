"""djangorestframework-idempotency-key (PyPI) in front of the charge endpoint of ../ledger.py,
on Django with Django REST framework.

Set up as its code asks: the app and IdempotencyKeyMiddleware installed, the migrations run
on an SQLite file in the folder the app is started from (writers queue at BEGIN), IDEMPOTENCY_KEY_LOCK_TIMEOUT set
(it has no default), and the charge view wrapped in simple_idempotency_key_method.
"""

import os

import django
from django.conf import settings

settings.configure(
    DEBUG=False,
    SECRET_KEY="interop-only",
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=[
        "django.contrib.contenttypes",
        "django.contrib.auth",
        "rest_framework",
        "rest_framework_idempotency_key",
    ],
    MIDDLEWARE=["rest_framework_idempotency_key.middleware.IdempotencyKeyMiddleware"],
    DATABASES={
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.path.join(os.getcwd(), "interop-drf.sqlite3"),
            # Writers queue for the lock at BEGIN rather than failing when two transactions
            # that began as readers both try to write ("database is locked").
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
        }
    },
    IDEMPOTENCY_KEY_LOCK_TIMEOUT=30,
    REST_FRAMEWORK={"UNAUTHENTICATED_USER": None},
    USE_TZ=True,
    # Errors (a 500's traceback) to the app's log, where the docs' truths were read from.
    LOGGING={
        "version": 1,
        "handlers": {"console": {"class": "logging.StreamHandler"}},
        "loggers": {"django.request": {"handlers": ["console"], "level": "ERROR"}},
    },
)
django.setup()

from django.core.management import call_command  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.http import JsonResponse  # noqa: E402
from django.urls import path  # noqa: E402
from rest_framework.response import Response  # noqa: E402
from rest_framework.views import APIView  # noqa: E402
from rest_framework_idempotency_key.decorators import simple_idempotency_key_method  # noqa: E402

import ledger  # noqa: E402

call_command("migrate", verbosity=0, interactive=False)


class Charges(APIView):
    authentication_classes = []
    permission_classes = []

    @simple_idempotency_key_method
    def post(self, request):
        body = ledger.body_of(request.body)
        answer = ledger.charge_sync(request.headers.get("Idempotency-Key"), body)
        return Response(answer, status=201)

    def get(self, request):
        return Response(ledger.read_back(request.query_params.get("key")))


def everything(request):
    return JsonResponse(ledger.ledger())


urlpatterns = [
    path("charges", Charges.as_view()),
    path("ledger", everything),
]

wsgi = get_wsgi_application()
