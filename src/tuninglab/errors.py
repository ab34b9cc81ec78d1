"""Errors a user can act on: printed as one line, never as a traceback."""

import errno

# The storage errors a user can fix (full, over quota, read-only, no permission), in the words
# every line that says a write failed uses: the work directory's, the site's.
STORAGE_REASONS = {errno.ENOSPC: "no space left", errno.EDQUOT: "over quota",
                   errno.EROFS: "a read-only filesystem", errno.EACCES: "no permission to write",
                   errno.EPERM: "no permission to write"}


class UserError(Exception):
    """Bad input or an unmet need; the message says what and where."""

    exit_code = 2


class NotOnThisServer(UserError):
    """An experiment sets an option the server under test does not have (MariaDB removed
    innodb_buffer_pool_instances, say): a run of the whole recipe skips that experiment, saying
    why; asked for by name, it is refused."""


class Interrupted(UserError):
    """The run was stopped (Ctrl-C, SIGTERM); finished points are kept."""

    exit_code = 130
