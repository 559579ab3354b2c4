#!/usr/bin/env bash
# A throwaway OpenLDAP server (no fsync: its data lives for one run) for the tests, the bench and .ci/run (never the system's own slapd).
#
#   test/ldap/slapd.sh start DIR [--tls] [--contexts "employees customers"]
#       builds cn=config in DIR/config from LDIF (mdb database in DIR/db, suffix dc=svc,dc=test,
#       modules and overlays unique, sssvlv, ppolicy; svc's schema ldap/svc.ldif), starts slapd on
#       127.0.0.1 on a spare port and prints shell assignments:
#         SVC_LDAP_URL=ldap://127.0.0.1:PORT  SVC_LDAP_BASE_DN  SVC_LDAP_BIND_DN  SVC_LDAP_BIND_PASSWORD
#         SVC_LDAP_ADMIN_DN  SVC_LDAP_ADMIN_PASSWORD  SVC_LDAP_PID; with --tls (a self-signed
#         certificate for 127.0.0.1: StartTLS on the ldap:// port, and an ldaps:// port) SVC_LDAP_CA
#         and SVC_LDAPS_URL
#       svc binds as SVC_LDAP_BIND_DN, a service account with write access (not the root DN: the
#       root DN would pass by the password policy). Each context is ou=<context> under the suffix,
#       with its own uniqueness domain over svcKey (svc's folded login names and unique values). The default password policy
#       (cn=default,ou=policies) locks after pwdMaxFailure 5 failures, and refuses a password in the
#       last 3 or shorter than 8 characters.
#   test/ldap/slapd.sh stop DIR
#       stops that slapd (by the pid it wrote) and removes DIR.
set -euo pipefail

SLAPD=${SLAPD:-/usr/sbin/slapd}
MODULES=${SVC_LDAP_MODULES:-/usr/lib/ldap}
SCHEMA=${SVC_LDAP_SCHEMA_DIR:-/etc/ldap/schema}
HERE=$(cd "$(dirname "$0")" && pwd)
SVC_LDIF="$HERE/../../ldap/svc.ldif"
SUFFIX=dc=svc,dc=test

command=${1:-}
dir=${2:-}
[ -n "$command" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR [--tls] [--contexts \"a b\"]" >&2; exit 2; }
shift 2

if [ "$command" = stop ]; then
  if [ -f "$dir/slapd.pid" ]; then
    pid=$(cat "$dir/slapd.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$dir"
  exit 0
fi
[ "$command" = start ] || { echo "unknown command $command" >&2; exit 2; }

tls=0
contexts="employees customers"
while [ $# -gt 0 ]; do
  case "$1" in
    --tls) tls=1 ;;
    --contexts) contexts=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

[ -x "$SLAPD" ] || { echo "slapd is not installed at $SLAPD (apt-get install -y slapd ldap-utils)" >&2; exit 3; }
mkdir -p "$dir/config" "$dir/db"
dir=$(cd "$dir" && pwd)

secret() { head -c 24 /dev/urandom | base64 | tr -d '/+=' ; }
admin_pw=$(secret)
svc_pw=$(secret)
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')

tls_config=""
listen="ldap://127.0.0.1:$port/"
if [ "$tls" = 1 ]; then
  tls_port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  listen="$listen ldaps://127.0.0.1:$tls_port/"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
    -keyout "$dir/key.pem" -out "$dir/cert.pem" >/dev/null 2>&1
  tls_config="olcTLSCertificateFile: $dir/cert.pem
olcTLSCertificateKeyFile: $dir/key.pem"
fi

unique_uris=""
for c in $contexts; do unique_uris="${unique_uris}olcUniqueURI: serialize ldap:///ou=$c,$SUFFIX?svcKey?sub
"; done

cat >"$dir/config.ldif" <<EOF
dn: cn=config
objectClass: olcGlobal
cn: config
olcPidFile: $dir/slapd.pid
olcArgsFile: $dir/slapd.args
${tls_config}

dn: cn=module{0},cn=config
objectClass: olcModuleList
cn: module{0}
olcModulePath: $MODULES
olcModuleLoad: back_mdb
olcModuleLoad: unique
olcModuleLoad: sssvlv
olcModuleLoad: ppolicy

dn: cn=schema,cn=config
objectClass: olcSchemaConfig
cn: schema

include: file://$SCHEMA/core.ldif
include: file://$SCHEMA/cosine.ldif
include: file://$SCHEMA/inetorgperson.ldif
include: file://$SVC_LDIF

dn: olcDatabase={-1}frontend,cn=config
objectClass: olcDatabaseConfig
objectClass: olcFrontendConfig
olcDatabase: {-1}frontend
olcSizeLimit: 500

dn: olcDatabase={0}config,cn=config
objectClass: olcDatabaseConfig
olcDatabase: {0}config
olcAccess: {0}to * by * none

dn: olcDatabase={1}mdb,cn=config
objectClass: olcDatabaseConfig
objectClass: olcMdbConfig
olcDatabase: {1}mdb
olcSuffix: $SUFFIX
olcRootDN: cn=admin,$SUFFIX
olcRootPW: $admin_pw
olcDbDirectory: $dir/db
olcDbMaxSize: 1073741824
olcDbNoSync: TRUE
olcDbIndex: objectClass eq
olcDbIndex: uid,mail,givenName,sn,cn pres,eq,sub
olcDbIndex: svcRole,svcDisabled eq
olcDbIndex: svcId,svcKey eq
olcDbIndex: svcUserName,svcExternalId pres,eq,sub
olcDbIndex: entryCSN eq
olcLimits: dn.exact="cn=svc,$SUFFIX" size=unlimited time=unlimited
olcAccess: {0}to attrs=userPassword by dn.exact="cn=svc,$SUFFIX" write by self write by anonymous auth by * none
olcAccess: {1}to * by dn.exact="cn=svc,$SUFFIX" write by self read by * none

dn: olcOverlay={0}unique,olcDatabase={1}mdb,cn=config
objectClass: olcOverlayConfig
objectClass: olcUniqueConfig
olcOverlay: {0}unique
${unique_uris}
dn: olcOverlay={1}sssvlv,olcDatabase={1}mdb,cn=config
objectClass: olcOverlayConfig
objectClass: olcSssVlvConfig
olcOverlay: {1}sssvlv
olcSssVlvMax: 64
olcSssVlvMaxKeys: 2
olcSssVlvMaxPerConn: 16

dn: olcOverlay={2}ppolicy,olcDatabase={1}mdb,cn=config
objectClass: olcOverlayConfig
objectClass: olcPPolicyConfig
olcOverlay: {2}ppolicy
olcPPolicyDefault: cn=default,ou=policies,$SUFFIX
olcPPolicyHashCleartext: TRUE
olcPPolicyUseLockout: FALSE
EOF

{
  cat <<EOF
dn: $SUFFIX
objectClass: dcObject
objectClass: organization
dc: svc
o: svc test directory

dn: cn=svc,$SUFFIX
objectClass: applicationProcess
objectClass: simpleSecurityObject
cn: svc
userPassword: $svc_pw

dn: ou=policies,$SUFFIX
objectClass: organizationalUnit
ou: policies

dn: cn=default,ou=policies,$SUFFIX
objectClass: applicationProcess
objectClass: pwdPolicy
cn: default
pwdAttribute: userPassword
pwdMaxFailure: 5
pwdLockout: TRUE
pwdLockoutDuration: 900
pwdFailureCountInterval: 900
pwdInHistory: 3
pwdMinLength: 8
pwdCheckQuality: 1
pwdAllowUserChange: TRUE

EOF
  for c in $contexts; do printf 'dn: ou=%s,%s\nobjectClass: organizationalUnit\nou: %s\n\n' "$c" "$SUFFIX" "$c"; done
} >"$dir/data.ldif"

slapadd -F "$dir/config" -n 0 -l "$dir/config.ldif" >"$dir/slapadd.log" 2>&1 || { cat "$dir/slapadd.log" >&2; exit 4; }
slapadd -F "$dir/config" -n 1 -l "$dir/data.ldif" >>"$dir/slapadd.log" 2>&1 || { cat "$dir/slapadd.log" >&2; exit 4; }

"$SLAPD" -F "$dir/config" -h "$listen" >"$dir/slapd.log" 2>&1 || { cat "$dir/slapd.log" >&2; exit 5; }
for _ in $(seq 1 100); do
  ldapwhoami -x -H "ldap://127.0.0.1:$port" -D "cn=svc,$SUFFIX" -w "$svc_pw" >/dev/null 2>&1 && break
  sleep 0.1
done
ldapwhoami -x -H "ldap://127.0.0.1:$port" -D "cn=svc,$SUFFIX" -w "$svc_pw" >/dev/null || { echo "slapd did not answer on port $port" >&2; exit 6; }

echo "SVC_LDAP_URL=ldap://127.0.0.1:$port"
echo "SVC_LDAP_BASE_DN=$SUFFIX"
echo "SVC_LDAP_BIND_DN=cn=svc,$SUFFIX"
echo "SVC_LDAP_BIND_PASSWORD=$svc_pw"
echo "SVC_LDAP_ADMIN_DN=cn=admin,$SUFFIX"
echo "SVC_LDAP_ADMIN_PASSWORD=$admin_pw"
[ "$tls" = 1 ] && echo "SVC_LDAP_CA=$dir/cert.pem" && echo "SVC_LDAPS_URL=ldaps://127.0.0.1:$tls_port"
echo "SVC_LDAP_PID=$(cat "$dir/slapd.pid")"
