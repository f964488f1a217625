# A checkpoint inside a gzip member: the member's start plus the lines and bytes of it committed.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('introspect', '0007_session_built_marks'),
    ]

    operations = [
        migrations.AddField(
            model_name='sourcefile',
            name='member_lines',
            field=models.BigIntegerField(default=0, help_text='gz: lines of the member at offset already committed'),
        ),
        migrations.AddField(
            model_name='sourcefile',
            name='member_bytes',
            field=models.BigIntegerField(default=0, help_text='gz: their uncompressed bytes, newlines included'),
        ),
    ]
