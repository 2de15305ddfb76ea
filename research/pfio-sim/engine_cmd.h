// pfio-sim engine: runs the real engine on the sim backend (see sim/engine_workload.h).
#pragma once

int EngineCommand(int argc, char **argv);
