#include "interp/language/modules.h"

#include <algorithm>
#include <filesystem>

#include "interp/language/evaluator.h"
#include "interp/language/parser.h"
#include "interp/language/stdlib_location.h"
#include "ops/core/safe_file.h"

namespace tfg {

namespace fs = std::filesystem;

Result<std::string> ReadTextFile(const std::string& path) {
  // A regular file only, of at most the size `tfg FILE` reads (interp/app/
  // cli.h): an import of a FIFO or /dev/zero is refused at once.
  constexpr uint64_t kMaxSourceBytes = uint64_t{64} << 20;
  return ReadRegularFile(path, kMaxSourceBytes, "source file");
}

ModuleLoader::ModuleLoader(std::string stdlib_dir)
    : stdlib_dir_(stdlib_dir.empty() ? DefaultStdlibDir() : std::move(stdlib_dir)) {}

namespace {

// The directory of the file an import statement is in ("." for the REPL).
fs::path ImportingDir(const ast::Import& stmt) {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (ec) cwd = ".";
  if (!stmt.span.file) return cwd;
  fs::path p(stmt.span.file->path());
  if (p.empty() || p.string().front() == '<') return cwd;
  return p.parent_path().empty() ? fs::path(".") : p.parent_path();
}

std::string Canonical(const std::string& path) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(path, ec);
  return ec ? path : c.string();
}

}  // namespace

std::vector<std::string> ModuleLoader::Candidates(const ast::Import& stmt) const {
  if (stmt.is_path) {
    fs::path p(stmt.module);
    if (p.is_absolute()) return {p.string()};
    return {(ImportingDir(stmt) / p).lexically_normal().string()};
  }
  std::string file = stmt.module + ".tfg";
  return {(fs::path(stdlib_dir_) / file).lexically_normal().string(),
          (ImportingDir(stmt) / file).lexically_normal().string()};
}

Result<std::shared_ptr<Module>> ModuleLoader::Load(Evaluator& ev, const ast::Import& stmt) {
  std::vector<std::string> candidates = Candidates(stmt);
  std::string found;
  for (const std::string& c : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec)) {
      found = c;
      break;
    }
  }
  if (found.empty()) {
    std::string looked;
    for (const std::string& c : candidates) looked += (looked.empty() ? "" : ", ") + c;
    return Status(Code::kNotFound, fmt::format("cannot find module '{}' (looked for {})", stmt.module, looked),
                  stmt.span);
  }
  std::string key = Canonical(found);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  if (std::find(loading_.begin(), loading_.end(), key) != loading_.end()) {
    std::string chain;
    auto start = std::find(loading_.begin(), loading_.end(), key);
    for (auto it = start; it != loading_.end(); ++it) chain += fs::path(*it).filename().string() + " -> ";
    chain += fs::path(key).filename().string();
    return Status(Code::kFailedPrecondition, fmt::format("import cycle: {}", chain), stmt.span);
  }

  TFG_ASSIGN_OR_RETURN(std::string text, ReadTextFile(found));
  auto file = std::make_shared<SourceFile>(found, std::move(text));
  auto program = ParseProgram(file);
  if (!program.ok()) return Status(program.status()).AddNote(stmt.span, "imported here");

  auto module = std::make_shared<Module>();
  module->name = stmt.alias.empty() ? stmt.module : stmt.alias;
  module->path = key;
  module->globals = ev.NewGlobals();
  loading_.push_back(key);
  Status s = ev.ExecProgram(*program, module->globals);
  loading_.pop_back();
  if (!s.ok()) {
    if (s.span().valid() && s.span().file != stmt.span.file) s.AddNote(stmt.span, "imported here");
    return s;
  }
  cache_[key] = module;
  return module;
}

void ModuleLoader::Clear() {
  for (auto& [path, module] : cache_) {
    if (module->globals) module->globals->vars.clear();
  }
  cache_.clear();
}

}  // namespace tfg
