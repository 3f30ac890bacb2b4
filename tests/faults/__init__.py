"""Fault tests: the platform against servers that stop, crash and come back.

Every test here is marked ``faults`` (select them with ``-m faults``, or leave them out
with ``-m "not faults"``); they run in the normal suite. They never touch the machine's
own PostgreSQL or Redis: servers.py starts servers of their own.
"""
