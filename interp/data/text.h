// Text corpora as tokens, and vocabularies built from them (the host half of
// "text in": the graph half is the index_table_find op).
//
// Splitting (`TokenSplit`):
//   kChars       every UTF-8 character (newlines and spaces included; a byte
//                that does not start a valid sequence is a character alone);
//   kWhitespace  runs of non-whitespace between ASCII spaces, tabs and
//                newlines, as tf.strings.split;
//   kWords       runs of letters and digits (ASCII, and every non-ASCII
//                byte, so accented words stay whole) with inner apostrophes
//                and hyphens ("don't", "well-known"); other characters
//                separate words and are dropped.
// `lower` maps ASCII A-Z to a-z first.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ops/core/status.h"

namespace tfg::data {

enum class TokenSplit { kChars, kWhitespace, kWords };

// "chars", "whitespace" or "words"; an error lists them.
Result<TokenSplit> ParseTokenSplit(const std::string& name);

// Of every line of text, the part after the first `marker` (and its
// newline); lines without the marker are left out.
std::string TextAfter(std::string_view text, std::string_view marker);

std::vector<std::string> Tokenize(std::string_view text, TokenSplit split, bool lower);

// A vocabulary: tokens[0] is the unknown token; the others are the tokens
// seen at least min_count times, most frequent first (ties: first seen
// first), at most max_size entries in all (0: no limit). counts[i] is how
// often tokens[i] occurs; counts[0] counts every occurrence mapped to the
// unknown token (cut off, or the unknown token itself in the text).
struct Vocabulary {
  std::vector<std::string> tokens;
  std::vector<int64_t> counts;
};

Result<Vocabulary> BuildVocabulary(const std::vector<std::string>& tokens, int64_t min_count, int64_t max_size,
                                   const std::string& unknown);

}  // namespace tfg::data
