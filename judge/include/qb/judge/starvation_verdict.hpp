// Starved workers: what a real-time run's workers lost to other processes, judged against the
// bounds of engine/starvation.hpp, and the sentence the console and the results carry.
#pragma once

#include <string>

#include "qb/engine/run.hpp"
#include "qb/judge/results.hpp"

namespace qb::judge {

/// The worst repetition of a scenario (by the fraction lost), judged; present = false when
/// no worker was watched (virtual time).
Starvation starvation_of(const engine::ScenarioRun& run);

/// "scenario \"x\": the worker lost 312 ms of 1.02 s (30.6 %) to other processes; figures
/// unreliable (...)": for a scenario whose starvation is unreliable or invalid.
std::string starvation_message(const std::string& scenario, const Starvation& starvation);

/// Whether a worker was starved past the invalid-measurement bound in any scenario (exit 3).
bool starved_invalid(const Results& results);

}  // namespace qb::judge
