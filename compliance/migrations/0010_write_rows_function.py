"""``compliance_write_rows(jsonb)``: the rows of one regulated write, sent as one statement (PostgreSQL only).

See :mod:`compliance.row_batch`. The function runs with the caller's rights (SECURITY INVOKER): it can write
nothing the application's role could not write row by row, and the tables' triggers and constraints apply.
"""

from django.db import migrations

FUNCTION = r"""
CREATE OR REPLACE FUNCTION compliance_write_rows(batch jsonb) RETURNS void
LANGUAGE plpgsql SECURITY INVOKER AS $fn$
DECLARE
  step jsonb;
  columns text;
  touched integer;
BEGIN
  FOR step IN SELECT value FROM jsonb_array_elements(batch) LOOP
    IF step ? 'close' THEN
      -- Set a column that is still NULL on one row; a row another transaction set meanwhile is refused
      -- with SQLSTATE RW001, which the caller reads as "moved meanwhile: read again".
      EXECUTE format('UPDATE %1$I SET %2$I = (jsonb_populate_record(NULL::%1$I, $1)).%2$I '
                     'WHERE id = ($1->>''id'')::bigint AND %2$I IS NULL', step->>'table', step->>'close')
        USING step->'row';
      GET DIAGNOSTICS touched = ROW_COUNT;
      IF touched <> 1 THEN
        RAISE EXCEPTION 'row % of % was changed meanwhile', step->'row'->>'id', step->>'table'
          USING ERRCODE = 'RW001';
      END IF;
    ELSE
      SELECT string_agg(format('%I', key), ', ') INTO columns FROM jsonb_object_keys(step->'rows'->0) AS key;
      EXECUTE format('INSERT INTO %1$I (%2$s) SELECT %2$s FROM jsonb_populate_recordset(NULL::%1$I, $1)',
                     step->>'table', columns)
        USING step->'rows';
    END IF;
  END LOOP;
END
$fn$;
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(FUNCTION)  # no parameters: the % of format() stay as written


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP FUNCTION IF EXISTS compliance_write_rows(jsonb)")


class Migration(migrations.Migration):
    dependencies = [("compliance", "0009_integer_bounds")]
    operations = [migrations.RunPython(create, drop)]
