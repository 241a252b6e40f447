// Log lines for what a process refuses from its peers (malformed messages,
// Hellos it will not serve, connections over its cap...), limited per kind
// of refusal: a peer that sends a thousand bad messages a second must not
// fill the disk, nor hide the one line that says what is going on.
//
// Each kind has a bucket of kRefusalBurst lines, refilled at one line a
// second: a few refusals are all logged, a storm of them logs about one
// line a second. A line logged after some were left out says how many;
// FlushRefusalLog (called a few times a second by each Transport's I/O
// thread) says it too once a storm has ended.
#pragma once

#include <string>
#include <string_view>

namespace tfg::net {

inline constexpr int kRefusalBurst = 20;

// Logs "tfg[net]: LINE" unless `kind` is over its rate, counting it then.
// `kind` names the refusal in the summary line ("a Hello of other ops").
void LogRefusal(std::string_view kind, const std::string& line);

// The kind of the refusal of a malformed message, from the decoder's
// error: what was wrong ("bad magic", "byte order"), up to the first
// number or quoted name, so that a storm of one kind hides no other.
std::string MalformedMessageKind(std::string_view decode_error);

// "tfg[net]: 57 more refusals like 'KIND' were not logged one by one" for
// each kind with refusals left out and a line to spare.
void FlushRefusalLog();

}  // namespace tfg::net
