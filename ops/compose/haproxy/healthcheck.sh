#!/bin/bash
# The balancer's health check: asks HAProxy's own health frontend (haproxy.cfg), with bash alone,
# as the image carries no HTTP client.
exec 3<>/dev/tcp/127.0.0.1/8404 || exit 1
printf 'GET /healthz HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3
read -r -t 2 status_line <&3 || exit 1
[[ $status_line == "HTTP/1."[01]" 200 "* ]]
