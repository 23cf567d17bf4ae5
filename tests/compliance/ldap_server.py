"""A real OpenLDAP server for the directory sign-in tests: Debian's ``slapd`` on a free port of 127.0.0.1, with its own
configuration and database in a temporary folder, loaded with a small casino directory (:data:`PEOPLE`, the groups
of :data:`GROUPS`), and stopped at the end. ``make test`` installs slapd (the Makefile's ``ldap-deps``)."""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SLAPD = "/usr/sbin/slapd"
SLAPADD = "/usr/sbin/slapadd"
BASE = "dc=casino,dc=example"
PEOPLE_BASE = f"ou=people,{BASE}"
GROUPS_BASE = f"ou=groups,{BASE}"
ADMIN_DN = f"cn=admin,{BASE}"
ADMIN_PASSWORD = "directory admin secret"
# The bind account the application searches with (a read-only service account, as at a casino).
SERVICE_DN = f"cn=compliance-app,{BASE}"
SERVICE_PASSWORD = "service account secret"
# What the directory calls a disabled account here (Active Directory's is userAccountControl's bit 2).
USER_FILTER = "(&(objectClass=inetOrgPerson)(uid=%(user)s)(!(employeeType=disabled)))"

# uid: (displayName, employeeNumber or "", password, groups)
PEOPLE = {
    "fay": ("Fay Finance", "PGCB-700001", "fay's directory password", ["finance-staff", "keystone"]),
    "mark": ("Mark Marketing", "PGCB-700002", "mark's directory password", ["marketing-staff", "keystone"]),
    "nina": ("Nina No-Credential", "", "nina's directory password", ["finance-staff", "keystone"]),
    "gus": ("Gus Groupless", "PGCB-700004", "gus's directory password", ["keystone"]),
    "dora": ("Dora Dealer", "PGCB-700005", "dora's directory password", ["table-games", "keystone"]),
    "admin": ("Directory Admin", "PGCB-700006", "the directory admin's password", ["finance-staff", "keystone"]),
}
GROUPS = ["finance-staff", "marketing-staff", "dealers", "table-games", "keystone", "unused"]
# "dealers" holds the group "table-games" (nested): Dora is a dealer through it, where the group type nests.
NESTED = {"dealers": ["table-games"]}


def group_dn(name: str) -> str:
    return f"cn={name},{GROUPS_BASE}"


def person_dn(uid: str) -> str:
    return f"uid={uid},{PEOPLE_BASE}"


def _ldif() -> str:
    entries = [
        f"dn: {BASE}\nobjectClass: dcObject\nobjectClass: organization\ndc: casino\no: Keystone Downs Casino\n",
        f"dn: {PEOPLE_BASE}\nobjectClass: organizationalUnit\nou: people\n",
        f"dn: {GROUPS_BASE}\nobjectClass: organizationalUnit\nou: groups\n",
        f"dn: {SERVICE_DN}\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: compliance-app\n"
        f"userPassword: {SERVICE_PASSWORD}\n",
    ]
    for uid, (name, credential, password, _) in PEOPLE.items():
        first, last = name.split(" ", 1)
        entry = (f"dn: {person_dn(uid)}\nobjectClass: inetOrgPerson\nuid: {uid}\ncn: {name}\nsn: {last}\n"
                 f"givenName: {first}\ndisplayName: {name}\nmail: {uid}@casino.example\nuserPassword: {password}\n")
        if credential:
            entry += f"employeeNumber: {credential}\n"
        entries.append(entry)
    for group in GROUPS:
        members = [person_dn(uid) for uid, person in PEOPLE.items() if group in person[3]]
        members += [group_dn(inner) for inner in NESTED.get(group, [])]
        # groupOfNames must have a member: each group also holds the bind account, so a test may empty it.
        lines = "".join(f"member: {m}\n" for m in [*members, SERVICE_DN])
        entries.append(f"dn: {group_dn(group)}\nobjectClass: groupOfNames\ncn: {group}\n{lines}")
    return "\n".join(entries)


def _config(folder: Path) -> str:
    return f"""
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile {folder}/slapd.pid
argsfile {folder}/slapd.args
database mdb
maxsize 10485760
suffix "{BASE}"
rootdn "{ADMIN_DN}"
rootpw "{ADMIN_PASSWORD}"
directory {folder}/db
access to attrs=userPassword by anonymous auth by self write by * none
access to * by users read by anonymous auth
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Directory:
    uri: str

    def connection(self) -> Any:
        import ldap

        conn = ldap.initialize(self.uri)
        conn.simple_bind_s(ADMIN_DN, ADMIN_PASSWORD)
        return conn

    def _modify(self, dn: str, changes: list[tuple[int, str, list[bytes]]]) -> None:
        conn = self.connection()
        try:
            conn.modify_s(dn, changes)
        finally:
            conn.unbind_s()

    def add_member(self, group: str, uid: str) -> None:
        import ldap

        self._modify(group_dn(group), [(ldap.MOD_ADD, "member", [person_dn(uid).encode()])])

    def remove_member(self, group: str, uid: str) -> None:
        import ldap

        self._modify(group_dn(group), [(ldap.MOD_DELETE, "member", [person_dn(uid).encode()])])

    def set_attribute(self, uid: str, attribute: str, value: str | None) -> None:
        import ldap

        if value is None:
            self._modify(person_dn(uid), [(ldap.MOD_DELETE, attribute, None)])  # type: ignore[list-item]
        else:
            self._modify(person_dn(uid), [(ldap.MOD_REPLACE, attribute, [value.encode()])])


def available() -> str:
    """Why the directory cannot be started here ("" when it can)."""
    if not Path(SLAPD).exists() or not Path(SLAPADD).exists():
        return "slapd is not installed (Debian's slapd and ldap-utils: make ldap-deps)"
    try:
        import ldap  # noqa: F401
    except ImportError:
        return "python-ldap is not installed (pip install -e '.[ldap]')"
    return ""


@contextlib.contextmanager
def running_directory() -> Iterator[Directory]:
    """slapd serving the casino directory until the block ends."""
    folder = Path(tempfile.mkdtemp(prefix="compliance-slapd-"))
    try:
        (folder / "db").mkdir()
        config = folder / "slapd.conf"
        config.write_text(_config(folder))
        (folder / "casino.ldif").write_text(_ldif())
        subprocess.run([SLAPADD, "-q", "-f", str(config), "-l", str(folder / "casino.ldif")], check=True,
                       capture_output=True, timeout=60)
        port = _free_port()
        uri = f"ldap://127.0.0.1:{port}"
        # -d 0: in the foreground (the fixture holds the process and stops it), logging nothing.
        server = subprocess.Popen([SLAPD, "-f", str(config), "-h", f"{uri}/", "-d", "0"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            _wait_for(port, server)
            yield Directory(uri=uri)
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(timeout=10)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _wait_for(port: int, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"slapd stopped at start-up: {server.stderr.read().decode() if server.stderr else ''}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.05)
    raise RuntimeError("slapd did not listen within 20 seconds")
