"""The redemption guard's checks, callable on rows already inserted (issue 27).

Migration 0031 runs the guard once a statement, ``AFTER INSERT … FOR EACH STATEMENT`` over the statement's new rows
(``new_redemptions``). ``public.coupons_redemptions_check(ids bigint[])`` makes the same checks over the redemptions
of the given ids, read from the table (inserted and visible to their own transaction): its text is the trigger
function's own, the new rows replaced by the rows of those ids, so the two cannot say different things. The
trigger itself is unchanged: a scan still checks its row from the transition table.

Its caller is the year's generator (``compliance.scale_sql``). When it logs in as a superuser it writes its hourly
batches with ``session_replication_role = replica``, as a restore or a logical replica applies rows: the row-by-row
foreign-key triggers do not fire (ten a redemption, some 40 % of the batch's time), and neither does the guard's. It
then checks the batch itself before its transaction commits: each foreign key once a referenced row (locked
``FOR KEY SHARE`` as the foreign key's own check locks it) and this function over the batch's ids — the same lock,
checks and refusals (``coupons.services.redemption._refusal`` reads their words). SQLite has no such function.
"""

from importlib import import_module

from django.db import migrations

from compliance.migration_ops import PostgresSQL

TRIGGER_FUNCTION = import_module("coupons.migrations.0031_redemption_check_by_statement").FUNCTION


def _callable(trigger_function: str, rows: int = 3) -> str:
    """The trigger function's text as a function of the rows' ids; ``rows``: how often the guard reads the
    statement's new rows (migration 0035's guard reads them once more, for their scanners)."""
    replaced = [
        ("public.coupons_redeem_only_distributed_rows() RETURNS trigger",
         "public.coupons_redemptions_check(ids bigint[]) RETURNS void", 1),
        ("new_redemptions n", "(SELECT r.* FROM public.coupons_redemption r WHERE r.id = ANY(ids)) n", rows),
        ("    RETURN NULL;\n", "", 1),
    ]
    text = trigger_function
    for old, new, times in replaced:
        if text.count(old) != times:
            raise RuntimeError(f"migrations 0034/0035: {old!r} appears {text.count(old)} times in the guard, not {times}")
        text = text.replace(old, new)
    return text


CHECK = _callable(TRIGGER_FUNCTION)


class Migration(migrations.Migration):
    dependencies = [("coupons", "0033_redemption_table_day_index")]

    operations = [PostgresSQL(sql=[CHECK], reverse_sql=["DROP FUNCTION IF EXISTS public.coupons_redemptions_check(bigint[])"])]
