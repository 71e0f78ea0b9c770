// The results JSON ("qosbench.results/1") as a document, both ways, from the one field list in
// results_fields.cpp: json_results.cpp writes with it and results_reader.cpp reads with it;
// sender_results.cpp writes a sender-only run's document from the same list.
#pragma once

#include "json_node.hpp"
#include "qb/reports/results.hpp"
#include "qb/reports/sender_results.hpp"

namespace qb::report {

/// Every field of `results`, in the documented order; non-finite figures as null.
Json results_document(const Results& results);

/// The Results a document describes. Throws FieldError at the first field that is missing or
/// of the wrong type. Optional fields a file lacks are derived where they can be (a gate's kind
/// and bound, absent in files written before they were fields, from its name and unit).
Results read_results_document(const JsonNode& root);

/// A sender-only run's document: the run's fields as in the results, "sender_only": true, and
/// per scenario what was sent.
Json sender_results_document(const SenderResults& results);

}  // namespace qb::report
