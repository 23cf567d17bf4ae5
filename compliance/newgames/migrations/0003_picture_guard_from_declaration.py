"""A picture added to a signed request is refused by the guard its model declares (``signed_part_of``,
migration 0002, which refuses changes and deletions too); the hand-written trigger of 0001 goes (issue 21)."""

from django.db import migrations

from compliance.migration_ops import PostgresSQL

OLD_GUARD = """
CREATE OR REPLACE FUNCTION newgames_refuse_picture_after_signing() RETURNS trigger AS $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM compliance_signature s JOIN django_content_type c ON c.id = s.content_type_id
        WHERE c.app_label = 'newgames' AND c.model = 'newgamerequest' AND s.object_id = NEW.request_id
    ) THEN
        RAISE EXCEPTION 'new game request #% is signed: no picture is added to it', NEW.request_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER newgames_requestpicture_after_signing BEFORE INSERT ON newgames_requestpicture
    FOR EACH ROW EXECUTE FUNCTION newgames_refuse_picture_after_signing();
"""


class Migration(migrations.Migration):
    dependencies = [("newgames", "0002_db_guards")]

    operations = [
        PostgresSQL(
            sql=["DROP TRIGGER IF EXISTS newgames_requestpicture_after_signing ON public.newgames_requestpicture",
                 "DROP FUNCTION IF EXISTS public.newgames_refuse_picture_after_signing()"],
            reverse_sql=[OLD_GUARD],
        ),
    ]
