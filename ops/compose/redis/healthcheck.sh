#!/bin/sh
# The health check: PONG to a PING sent with the password (REDISCLI_AUTH keeps it off the command
# line). An error reply, NOAUTH or WRONGPASS, is unhealthy.
REDISCLI_AUTH=$(cat "$REDIS_PASSWORD_FILE") || exit 1
export REDISCLI_AUTH
[ "$(redis-cli ping)" = PONG ]
