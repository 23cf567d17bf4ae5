from datetime import timedelta
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from tests.equipment.conftest import T0

pytestmark = pytest.mark.django_db

def test_queries(tdf, place_dice, floorperson, open_at):
    place_dice(tdf, T0)
    open_at(tdf, floorperson, T0 + timedelta(minutes=5))
    import time_machine
    at = T0 + timedelta(hours=20)
    with time_machine.travel(at, tick=False), CaptureQueriesContext(connection) as q:
        place_dice(tdf, at)
    with open("/tmp/prof/dice_queries.txt", "w") as f:
        for i, x in enumerate(q.captured_queries):
            f.write(f"{i:3} {x['sql'][:400]}\n")
    print(len(q.captured_queries))
