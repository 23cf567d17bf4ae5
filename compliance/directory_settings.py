"""Directory sign-in's settings (issue 26, item 6), read from the environment: off unless ``LDAP_SERVER_URI`` is set.

:func:`directory_settings` returns the ``AUTH_LDAP_*`` settings django-auth-ldap reads and ``DIRECTORY_SIGN_IN``, this
system's own part: which directory groups give which role and facility, and which attributes hold a person's name,
Board credential number and e-mail. Every value is checked here, at start-up, and a bad one stops the process with
the variable and the entry named (docs/operations.md, "Directory sign-in"). Imports nothing of Django but
django-auth-ldap's configuration classes, and those only when the directory is on (django-auth-ldap is the optional
``ldap`` extra: the embedded default never needs it).
"""

from __future__ import annotations

import re
from typing import Any

from compliance.env import ImproperlyConfiguredEnv, env_bool, env_int, env_str

__all__ = ["GROUP_TYPES", "directory_settings", "parse_group_map"]

BACKEND = "compliance.directory.DirectoryBackend"

# LDAP_GROUP_TYPE: how the directory records who is in a group (django-auth-ldap's group types).
GROUP_TYPES = {
    "groupOfNames": "GroupOfNamesType",
    "nestedGroupOfNames": "NestedGroupOfNamesType",
    "groupOfUniqueNames": "GroupOfUniqueNamesType",
    "posixGroup": "PosixGroupType",
    "activeDirectory": "ActiveDirectoryGroupType",
    "nestedActiveDirectory": "NestedActiveDirectoryGroupType",
}


def _dn(name: str, entry: str, dn: str) -> str:
    """``dn`` in one spelling (python-ldap's, lower case), or the start-up error naming the entry."""
    import ldap.dn

    try:
        parts = ldap.dn.str2dn(dn.strip())
    except ldap.DECODING_ERROR:
        parts = []
    if not parts:
        raise ImproperlyConfiguredEnv(f"{name}: {entry.strip()!r} — {dn.strip()!r} is not a distinguished name "
                                      "such as cn=finance,ou=groups,dc=casino,dc=example")
    return normalize_dn(dn)


def normalize_dn(dn: str) -> str:
    """One spelling of a DN for comparing: python-ldap's, without spaces after commas, lower case."""
    import ldap.dn

    return str(ldap.dn.dn2str(ldap.dn.str2dn(dn.strip()))).lower()


_SLUG = re.compile(r"[-a-zA-Z0-9_]{1,32}")


def parse_group_map(name: str, raw: str, *, what: str, allowed: set[str] | None = None) -> dict[str, frozenset[str]]:
    """``"code=group DN; code=group DN"`` (or one entry a line) as {group DN: codes}; a code may be named for several
    groups and a group may give several codes. Each bad entry is an error naming it. ``allowed``: the codes there
    are (roles); ``None``: any short name (facilities are rows, said at sign-in when no facility has the code)."""
    found: dict[str, set[str]] = {}
    for entry in raw.replace("\n", ";").split(";"):
        if not entry.strip():
            continue
        code, sep, dn = entry.partition("=")
        code = code.strip()
        if not sep or not dn.strip():
            raise ImproperlyConfiguredEnv(f"{name}: {entry.strip()!r} is not {what}=group DN")
        if allowed is not None and code not in allowed:
            raise ImproperlyConfiguredEnv(f"{name}: {entry.strip()!r} — {code!r} is not a {what}; use one of "
                                          f"{', '.join(sorted(allowed))}")
        if allowed is None and not _SLUG.fullmatch(code):
            raise ImproperlyConfiguredEnv(f"{name}: {entry.strip()!r} — {code!r} is not a {what}")
        found.setdefault(_dn(name, entry, dn), set()).add(code)
    return {dn: frozenset(codes) for dn, codes in found.items()}


def _search(name: str, base: str, filterstr: str) -> Any:
    import ldap
    from django_auth_ldap.config import LDAPSearch

    _dn(name, base, base)
    if not (filterstr.startswith("(") and filterstr.endswith(")")):
        raise ImproperlyConfiguredEnv(f"LDAP_USER_FILTER={filterstr!r} is not an LDAP filter in parentheses")
    return LDAPSearch(base, ldap.SCOPE_SUBTREE, filterstr)


def _group_base() -> str:
    base = env_str("LDAP_GROUP_SEARCH_BASE", required=True)
    _dn("LDAP_GROUP_SEARCH_BASE", base, base)
    return base


def _user_filter() -> str:
    filterstr = env_str("LDAP_USER_FILTER", "(uid=%(user)s)").strip()
    if "%(user)s" not in filterstr:
        raise ImproperlyConfiguredEnv(f"LDAP_USER_FILTER={filterstr!r} must hold %(user)s where the username "
                                      "typed goes, e.g. (sAMAccountName=%(user)s)")
    try:
        filterstr % {"user": "x"}  # a stray % is found now, not at the first sign-in
    except (KeyError, ValueError, TypeError):
        raise ImproperlyConfiguredEnv(f"LDAP_USER_FILTER={filterstr!r}: write a literal % as %%") from None
    return filterstr


def _connection_options() -> dict[Any, Any]:
    import ldap

    options: dict[Any, Any] = {
        # A directory that does not answer fails the sign-in in seconds instead of hanging the web worker.
        ldap.OPT_NETWORK_TIMEOUT: env_int("LDAP_TIMEOUT_SECONDS", 5, minimum=1, maximum=60),
        ldap.OPT_TIMEOUT: env_int("LDAP_TIMEOUT_SECONDS", 5, minimum=1, maximum=60),
        ldap.OPT_REFERRALS: 0,  # Active Directory's referrals need a bind of their own: never followed
    }
    ca_file = env_str("LDAP_CA_CERT_FILE")
    if ca_file:
        from pathlib import Path

        if not Path(ca_file).is_file():
            raise ImproperlyConfiguredEnv(f"LDAP_CA_CERT_FILE={ca_file!r} is not a readable file")
        options[ldap.OPT_X_TLS_CACERTFILE] = ca_file
        options[ldap.OPT_X_TLS_REQUIRE_CERT] = ldap.OPT_X_TLS_DEMAND
        options[ldap.OPT_X_TLS_NEWCTX] = 0  # last: applies the options above to this connection's TLS context
    return options


def directory_settings() -> dict[str, Any]:
    """The settings of directory sign-in from the environment; ``{}`` when ``LDAP_SERVER_URI`` is not set."""
    uri = env_str("LDAP_SERVER_URI").strip()
    if not uri:
        return {}
    for one in uri.split():
        if not one.startswith(("ldap://", "ldaps://")):
            raise ImproperlyConfiguredEnv(f"LDAP_SERVER_URI: {one!r} is not an ldap:// or ldaps:// address")
    try:
        import django_auth_ldap.config as config
    except ImportError:
        raise ImproperlyConfiguredEnv("LDAP_SERVER_URI is set but django-auth-ldap is not installed: "
                                      "pip install 'pa-table-games-compliance[ldap]'") from None
    group_type = env_str("LDAP_GROUP_TYPE", "groupOfNames")
    if group_type not in GROUP_TYPES:
        raise ImproperlyConfiguredEnv(f"LDAP_GROUP_TYPE={group_type!r}: use one of {', '.join(GROUP_TYPES)}")
    roles_raw = env_str("LDAP_ROLE_GROUPS", required=True)
    from compliance.roles import Role

    role_groups = parse_group_map("LDAP_ROLE_GROUPS", roles_raw, what="role", allowed=set(Role.values))
    if not role_groups:
        raise ImproperlyConfiguredEnv("LDAP_ROLE_GROUPS names no group: give each role its directory group")
    import ldap

    return {
        "AUTH_LDAP_SERVER_URI": uri,
        "AUTH_LDAP_BIND_DN": env_str("LDAP_BIND_DN"),
        "AUTH_LDAP_BIND_PASSWORD": env_str("LDAP_BIND_PASSWORD"),
        "AUTH_LDAP_START_TLS": env_bool("LDAP_START_TLS", default=False),
        "AUTH_LDAP_CONNECTION_OPTIONS": _connection_options(),
        "AUTH_LDAP_USER_SEARCH": _search("LDAP_USER_SEARCH_BASE", env_str("LDAP_USER_SEARCH_BASE", required=True),
                                         _user_filter()),
        "AUTH_LDAP_GROUP_SEARCH": config.LDAPSearch(_group_base(), ldap.SCOPE_SUBTREE, "(objectClass=*)"),
        "AUTH_LDAP_GROUP_TYPE": getattr(config, GROUP_TYPES[group_type])(),
        "AUTH_LDAP_USER_ATTR_MAP": {"email": env_str("LDAP_EMAIL_ATTRIBUTE", "mail")},
        "AUTH_LDAP_ALWAYS_UPDATE_USER": True,
        "AUTH_LDAP_CACHE_TIMEOUT": 0,  # groups are read at every sign-in: a role taken away is gone at the next
        "DIRECTORY_SIGN_IN": {
            "role_groups": role_groups,
            "facility_groups": parse_group_map("LDAP_FACILITY_GROUPS", env_str("LDAP_FACILITY_GROUPS"),
                                               what="facility code"),
            "credential_attribute": env_str("LDAP_CREDENTIAL_ATTRIBUTE", "employeeNumber"),
            "name_attributes": [a.strip() for a in env_str("LDAP_NAME_ATTRIBUTES", "displayName,cn").split(",")
                                if a.strip()],
            "default_department": env_str("LDAP_DEFAULT_DEPARTMENT", "compliance"),
        },
    }

