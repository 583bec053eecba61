// The types a command's header names but does not define, declared once: CLI11's App (a command adds
// its subcommand to it) and host/dist's World (the processes under mpirun), so that the header of a
// command pulls in neither CLI11 nor MPI.
#pragma once

namespace CLI {
class App;
}

namespace impact::dist {
class World;
}
