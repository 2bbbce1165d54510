#!/bin/sh
# Write the proxy's server blocks and start nginx in the foreground. HTTP on $PROXY_PORT
# (default 8080); HTTPS on $PROXY_TLS_PORT (default 8443) too when /etc/cjudge-tls holds
# fullchain.pem and privkey.pem. UPSTREAM: the app (default server:8000).
set -eu
conf=${PROXY_CONF:-/etc/cjudge-proxy}
out=/tmp/nginx-servers
mkdir -p "$out" /tmp/nginx-body
UPSTREAM=${UPSTREAM:-server:8000}
sed "s|\${UPSTREAM}|$UPSTREAM|" "$conf/nginx.conf" > /tmp/nginx.conf
sed -e "s|\${LISTEN}|${PROXY_PORT:-8080}|" -e "s|\${TLS}||" "$conf/server.conf.template" \
  > "$out/http.conf"
tls=${PROXY_TLS_DIR:-/etc/cjudge-tls}
if [ -f "$tls/fullchain.pem" ] && [ -f "$tls/privkey.pem" ]; then
  sed -e "s|\${LISTEN}|${PROXY_TLS_PORT:-8443} ssl|" \
      -e "s|\${TLS}|ssl_certificate $tls/fullchain.pem; ssl_certificate_key $tls/privkey.pem; ssl_protocols TLSv1.2 TLSv1.3; add_header Strict-Transport-Security \"max-age=31536000\" always;|" \
      "$conf/server.conf.template" > "$out/https.conf"
  echo "proxy: HTTPS on ${PROXY_TLS_PORT:-8443} with $tls/fullchain.pem"
fi
nginx -t -c /tmp/nginx.conf -e /dev/stderr
exec nginx -c /tmp/nginx.conf -e /dev/stderr -g 'daemon off;'
