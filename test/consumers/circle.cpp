// SPDX-License-Identifier: MIT
// The consumer of circle.c written in C++17: orca's public headers compile as C++ (their
// declarations are extern "C"), and the library's results are the same bits whatever calls it.
#include <orca/orca.h>

#include <cinttypes>
#include <cstdio>
#include <memory>

namespace {

struct ScenarioDeleter {
    void operator()(orca_scenario *sc) const noexcept { orca_scenario_destroy(sc); }
};
using Scenario = std::unique_ptr<orca_scenario, ScenarioDeleter>;

} // namespace

int main()
{
    static_assert(ORCA_VERSION_MAJOR >= 0 && ORCA_BITS_VERSION >= 1, "orca's version macros");
    orca_sim_def def = orca_sim_def_default();
    def.worker_count = 3;
    orca_scenario *raw = nullptr;
    if (orca_scenario_create_builtin(ORCA_SCENE_CIRCLE, 100, 1, &def, &raw) != ORCA_OK) {
        std::fprintf(stderr, "circle (C++): cannot create the scene\n");
        return 1;
    }
    Scenario sc(raw);
    constexpr int steps = 400;
    for (int k = 0; k < steps; ++k) {
        if (orca_scenario_step(sc.get()) != ORCA_OK) {
            std::fprintf(stderr, "circle (C++): step %d: %s\n", k,
                         orca_scenario_last_error(sc.get()));
            return 1;
        }
    }
    orca_sim *sim = orca_scenario_sim(sc.get());
    std::printf("circle agents=%d steps=%d hash=%016" PRIx64 "\n", orca_sim_agent_count(sim),
                steps, orca_sim_hash(sim));
    return 0;
}
