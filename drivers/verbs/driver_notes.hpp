// What the verbs driver tells the user while it sets up (which GID and why, a tree paced in
// software): one line on stderr, once per process for each text, since every repetition opens
// the device again.
#pragma once

#include <string>

namespace qb::drv::verbs {

/// Prints "qosbench: verbs: <text>" to stderr unless this process printed the same text before.
void print_note_once(const std::string& text);

}  // namespace qb::drv::verbs
