# Indexes for the session page: near-misses of a page's time span, and the per-window summary.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('introspect', '0008_sourcefile_member_position'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='waysevent',
            index=models.Index(fields=['session', 'event', 'ts'], name='event_session_kind_ts'),
        ),
        migrations.AddIndex(
            model_name='turn',
            index=models.Index(fields=['session', 'window', 'epoch', 'token_position'], name='turn_session_window'),
        ),
    ]
