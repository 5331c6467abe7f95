#!/bin/sh
# Stands in for a Python that never starts the server (tests the start-up timeout).
exec sleep 30
