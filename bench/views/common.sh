# Shared by bench/views/run.sh and instructions.sh (bash; `source` it after setting WORK):
#   free_port                      -> a free TCP port on 127.0.0.1
#   wait_port PORT                 (until something listens there; up to 60 s, for valgrind)
#   views_nginx_conf NAME BLOCK [DIRECTIVE...] -> the directory of an nginx configuration in
#                                  $WORK/NAME: one worker, no daemon, no access log, BLOCK in http
#   views_backend_block PORT       -> the backend's server block (5 KiB to any path, $WORK/www)
#   views_proxy_block BACKEND PORT -> nginx proxy_pass to the backend with a keep-alive pool

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_port() {
  for _ in $(seq 1 600); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "$(basename "$0"): nothing listens on $1" >&2
  return 1
}

views_nginx_conf() {
  local dir=$WORK/$1 block=$2
  shift 2
  mkdir -p "$dir/logs"
  {
    echo "worker_processes 1;"
    echo "daemon off;"
    for directive in "$@"; do echo "$directive"; done
    cat <<CONF
error_log $dir/logs/error.log warn;
pid $dir/nginx.pid;
$( [ "$(id -u)" -eq 0 ] && echo "user root;" )
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  client_body_temp_path $dir/body; proxy_temp_path $dir/proxy;
  fastcgi_temp_path $dir/fcgi; uwsgi_temp_path $dir/uwsgi; scgi_temp_path $dir/scgi;
  $block
}
CONF
  } >"$dir/nginx.conf"
  echo "$dir"
}

views_backend_block() {
  mkdir -p "$WORK/www"
  head -c 5120 /dev/zero | tr '\0' 'b' >"$WORK/www/bytes"
  echo "server { listen 127.0.0.1:$1; root $WORK/www;
  location / { default_type application/octet-stream; try_files /bytes =404; } }"
}

views_proxy_block() {
  echo "upstream backend { server 127.0.0.1:$1; keepalive 64; }
  server { listen 127.0.0.1:$2; location / { proxy_pass http://backend; proxy_http_version 1.1;
    proxy_set_header Connection \"\"; } }"
}
