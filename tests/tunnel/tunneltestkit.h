// The tunnel tests' kit: a real Ed25519 key, an in-process hub with a test-filled server
// registry, and a TCP relay that can go silent.
#pragma once

#include "tcprelay.h"
#include "testhub.h"
#include "testkey.h"
