"""`agui proxy`: a streaming reverse proxy for AG-UI chat endpoints.

Requests go upstream and answers come back frame by frame (`app`), on the HTTP stack of
`replay.web`. Along the way an exchange can be written to disk as a recording agui
reads back (`recorder`, numbered by placeholders no two writers share: `numbering`,
named without ever replacing a file: `new_name`),
checked live with the replay checks (`live_check`), or — with `--native` — bridged
from a legacy server to a native client (`bridge`). Headers are
filtered and redacted in one place (`headers`); transport failures become one
`RUN_ERROR` frame (`failures`). Nothing here keeps state between requests beyond the
recorder's counter and the checker's memory of earlier runs.
"""
