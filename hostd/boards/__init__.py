"""The board profile on the host: ``boardfile`` (which file describes the connected table,
the club's copy of it, written with a backup and a diff; the one lookup by id) and
``hardware`` (the definitions of the boards people buy, and a profile's pins against
them). It imports only firmware's profile code and hostd/errors.py, so the table's link
(hostd/table), the bring-up (hostd/bringup), the daemon and the CLI all read it.
"""
