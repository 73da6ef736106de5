# nginx around the shipped deploy/nginx/localcloud.conf, run unprivileged in a directory of its
# own (end-to-end tests and benchmarks).
#
#   source Tests/EndToEnd/support/nginx.sh
#   nginx_prefix DIR WORKERS ACCESS_LOG     # DIR/nginx.conf, including DIR/localcloud.conf
#   nginx -p DIR -c DIR/nginx.conf -g 'daemon off;' &
#
# Write DIR/localcloud.conf (the shipped file with this run's ports) before starting nginx.

# nginx_prefix DIR WORKERS ACCESS_LOG: the main configuration, every path inside DIR
# (ACCESS_LOG is a file name in DIR, or `off`).
nginx_prefix() {
  local dir="$1" workers="$2" access="$3"
  [ "$access" = off ] || access="$dir/$access"
  mkdir -p "$dir"
  # As root (CI), workers would run as nobody and could not write request bodies larger than the
  # buffer (an asset upload) into DIR/body, inside the test's private temporary directory.
  local user=""
  [ "$(id -u)" = 0 ] && user="user root;"
  cat > "$dir/nginx.conf" <<CONF
$user
worker_processes $workers;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
    access_log $access;
    client_body_temp_path $dir/body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    include $dir/localcloud.conf;
}
CONF
}
