"""On PostgreSQL a signed regulated record is frozen: UPDATE and DELETE are refused once it has a signature.

This migration defines the trigger function; each app's guard migration (written from the models'
declarations by ``manage.py db_guards --makemigrations``, see ``compliance.db_guards``) attaches it to
every regulated table, with the table's content type and the columns left out of the signed content (``unsigned_fields``) as arguments.
An UPDATE that changes only those columns passes; anything else on a signed row raises.
"""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION compliance_refuse_signed_change() RETURNS trigger AS $$
DECLARE
    -- TG_ARGV: app label, model name, key column, then the unsigned marker columns.
    unsigned text[] := TG_ARGV[3:];
    record_id bigint := (to_jsonb(OLD) ->> TG_ARGV[2])::bigint;
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM compliance_signature s JOIN django_content_type c ON c.id = s.content_type_id
        WHERE c.app_label = TG_ARGV[0] AND c.model = TG_ARGV[1] AND s.object_id = record_id
    ) THEN
        IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND (to_jsonb(NEW) - unsigned) = (to_jsonb(OLD) - unsigned) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '% #% is signed: % refused (record a correction instead)', TG_TABLE_NAME, record_id, TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
"""


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FUNCTION, params=None)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP FUNCTION IF EXISTS compliance_refuse_signed_change() CASCADE", params=None)


class Migration(migrations.Migration):
    dependencies = [("compliance", "0007_audit_chain")]

    operations = [migrations.RunPython(forwards, backwards)]
