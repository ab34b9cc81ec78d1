"""Errors a user can act on: printed as one line, never as a traceback."""


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
