// The rule of a run's folder (resume/owned_folder.hpp) case by case, and one destination under its
// spellings (io::same_destination). The random trees are tests/calibrate/test_folder_rule.cpp's.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "files.hpp"
#include "folder_rule.hpp"
#include "io/out_file.hpp"
#include "io/folder_names.hpp"
#include "resume/owned_folder.hpp"

namespace impact {
namespace {

namespace fs = std::filesystem;
using test::slurp;

void put(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string manifest(const std::string& kind, const std::vector<std::string>& files) {
  nlohmann::json j = {{"impactbatch_outputs", 2}, {"kind", kind}, {"files", files}};
  return j.dump();
}

resume::FolderRequest request(const std::string& dir, const std::string& kind, std::vector<std::string> files) {
  resume::FolderRequest r;
  r.dir = dir;
  r.kind = kind;
  r.files = std::move(files);
  r.removed_first = {"metadata.json"};
  return r;
}

// the message of the claim's refusal ("" when it took the folder)
std::string refusal(const resume::FolderRequest& r) {
  try {
    resume::claim_folder(r);
  } catch (const std::invalid_argument& e) { return e.what(); }
  return "";
}

TEST(OwnedFolder, NamesAndParts) {
  for (const char* ok : {"jia.csv", "salib/jia_P_n.txt", ".hidden", "a b.png", "salib"}) EXPECT_TRUE(io::owned_name(ok)) << ok;
  for (const char* bad : {"", ".", "..", "../x", "lnk/x", "/etc/passwd", "salib/", "salib/../x", "salib/a/b",
                          ".impactbatch-outputs.json", "a\nb", "salib/.."})
    EXPECT_FALSE(io::owned_name(bad)) << bad;
  EXPECT_EQ(io::part_index("jia.part-00003.npy", "jia.npy"), 3);
  EXPECT_EQ(io::part_index("salib/jia_P_n.part-00012.txt", "salib/jia_P_n.txt"), 12);
  EXPECT_EQ(io::part_index("design.part-00000", "design"), 0);
  EXPECT_EQ(io::part_index("jia.part-00003.csv", "jia.npy"), -1);
  EXPECT_EQ(io::part_index("jia.part-3.npy", "jia.npy"), -1);  // not the grammar's 5 digits
  EXPECT_EQ(io::part_index("stronge.part-00003.npy", "jia.npy"), -1);
  EXPECT_EQ(io::part_index("x.jia.part-00003.npy", "jia.npy"), -1);
  std::string stem;
  long pid = 0;
  EXPECT_TRUE(io::parse_temporary(".jia.csv.tmp-123-4", stem, pid));
  EXPECT_EQ(stem, "jia.csv");
  EXPECT_EQ(pid, 123);
  EXPECT_TRUE(io::parse_temporary(".jia.part-00001.npy.tmp-9-0", stem, pid));
  EXPECT_EQ(stem, "jia.part-00001.npy");
  for (const char* no : {"jia.csv.tmp-1-2", ".jia.csv.tmp-1", ".jia.csv.tmp-x-2", ".tmp-1-2", ".jia.csv.tmp--2"})
    EXPECT_FALSE(io::parse_temporary(no, stem, pid)) << no;
  for (const char* blank : {"", " ", "\t\n"}) {
    EXPECT_FALSE(io::usable_folder_name(blank));
    EXPECT_THROW(io::check_folder_name(blank, "output.dir"), std::invalid_argument);
  }
  EXPECT_TRUE(io::usable_folder_name("."));
}

TEST(OwnedFolder, AFolderIsAKindsOnlyByItsManifest) {
  const test::ScratchDir d("owned_kind");
  const std::string out = d / "out";
  // part-like names and temporaries prove nothing: refused, every file kept
  put(out + "/backup.part-00001.rar", "volume 1");
  put(out + "/.notes.tmp-1-2", "notes");
  std::string why = refusal(request(out, "study", {"jia.csv", "metadata.json"}));
  EXPECT_NE(why.find("holds 2 file(s) that no impactbatch study wrote there (.notes.tmp-1-2, backup.part-00001.rar)"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("--force"), std::string::npos);
  // with force only the run's own names: the others stay
  resume::FolderRequest r = request(out, "study", {"jia.csv", "metadata.json"});
  r.force = true;
  put(out + "/metadata.json", "a user's");
  const resume::FolderClaim forced = resume::claim_folder(r);
  EXPECT_TRUE(forced.forced);
  EXPECT_EQ(forced.removed, std::vector<std::string>{"metadata.json"});
  EXPECT_EQ(slurp(out + "/backup.part-00001.rar"), "volume 1");
  EXPECT_EQ(slurp(out + "/.notes.tmp-1-2"), "notes");
  // now a study's: a calibration does not take it, and the reverse
  why = refusal(request(out, "calibration", {"samples.csv"}));
  EXPECT_NE(why.find("holds a study's outputs"), std::string::npos) << why;
  EXPECT_NE(why.find("not a calibration's"), std::string::npos) << why;
  const std::string cal = d / "cal";
  resume::claim_folder(request(cal, "calibration", {"samples.csv"}));
  put(cal + "/samples.csv", "draws");
  why = refusal(request(cal, "study", {"jia.csv"}));
  EXPECT_NE(why.find("holds a calibration's outputs"), std::string::npos) << why;
  EXPECT_EQ(slurp(cal + "/samples.csv"), "draws");
  // a study's manifest from before kinds (version 1) is a study's when it lists parts.json
  const std::string v1 = d / "v1";
  put(v1 + "/.impactbatch-outputs.json", R"({"impactbatch_outputs": 1, "files": ["jia.csv", "parts.json"]})");
  put(v1 + "/jia.csv", "old");
  EXPECT_EQ(refusal(request(v1, "study", {"stronge.csv"})), "");
  EXPECT_FALSE(fs::exists(v1 + "/jia.csv"));
}

TEST(OwnedFolder, AManifestNamesOnlyItsFolder) {
  const test::ScratchDir d("owned_manifest");
  const std::string out = d / "out";
  put(d / "outside/victim.txt", "victim");
  fs::create_directories(out);
  fs::create_directory_symlink("../outside", out + "/lnk");
  for (const char* entry : {"lnk/victim.txt", "../outside/victim.txt", "/etc/hostname", "salib/../../outside/victim.txt"}) {
    put(out + "/.impactbatch-outputs.json", manifest("study", {"jia.csv", entry}));
    const std::string why = refusal(request(out, "study", {"jia.csv"}));
    EXPECT_NE(why.find(std::string("lists '") + entry + "'"), std::string::npos) << why;
    EXPECT_EQ(slurp(d / "outside/victim.txt"), "victim");
  }
  // a manifest that is a link is none
  fs::remove(out + "/.impactbatch-outputs.json");
  put(d / "outside/m.json", manifest("study", {"victim.txt"}));
  fs::create_symlink("../outside/m.json", out + "/.impactbatch-outputs.json");
  EXPECT_NE(refusal(request(out, "study", {"jia.csv"})).find("not a regular file"), std::string::npos);
}

TEST(OwnedFolder, NoLinkIsFollowed) {
  const test::ScratchDir d("owned_links");
  const std::string out = d / "out", shared = d / "shared";
  put(shared + "/results.part-00001.csv", "someone else's");
  put(shared + "/jia_P_n.txt", "someone else's salib");
  // a study's folder whose salib/ is a link: nothing is removed through it, the link stays, and a run
  // that writes SALib files is refused
  resume::FolderRequest r = request(out, "study", {"jia.csv", "salib/jia_P_n.txt", "metadata.json"});
  resume::claim_folder(r);
  fs::create_directory_symlink(shared, out + "/salib");
  EXPECT_NE(refusal(r).find("salib is a link"), std::string::npos);
  r.files = {"jia.csv", "metadata.json"};
  EXPECT_EQ(refusal(r), "");
  EXPECT_TRUE(fs::is_symlink(out + "/salib"));
  EXPECT_EQ(slurp(shared + "/results.part-00001.csv"), "someone else's");
  EXPECT_EQ(slurp(shared + "/jia_P_n.txt"), "someone else's salib");
  // a link of one of the run's names is replaced, not written through; a hard link likewise
  put(d / "target.csv", "the user's table");
  fs::create_symlink(d / "target.csv", out + "/jia.csv");
  EXPECT_EQ(refusal(r), "");
  EXPECT_FALSE(fs::exists(out + "/jia.csv"));  // the link went at the claim
  io::write_file(out + "/jia.csv", "the run's table");
  fs::create_hard_link(d / "target.csv", out + "/metadata.json");
  EXPECT_EQ(refusal(r), "");
  io::write_file(out + "/metadata.json", "{}");
  EXPECT_EQ(slurp(d / "target.csv"), "the user's table");
  // the output folder itself a link: refused, naming its target
  fs::create_directory_symlink(out, d / "out-link");
  r.dir = d / "out-link";
  EXPECT_NE(refusal(r).find("out-link is a link (to " + out + ")"), std::string::npos);
  // OutFile in a run's folder: a folder that is a link is refused, a device is not replaced
  EXPECT_THROW(io::write_file(d / "out-link/x.csv", "x"), std::runtime_error);
  EXPECT_FALSE(fs::exists(out + "/x.csv"));
  ASSERT_EQ(::mkfifo((out + "/fifo.csv").c_str(), 0644), 0);
  EXPECT_THROW(io::write_file(out + "/fifo.csv", "x"), std::runtime_error);
  r.dir = out;
  r.files = {"fifo.csv"};
  EXPECT_NE(refusal(r).find("a device, FIFO or socket where this run writes a file"), std::string::npos);
}

TEST(OwnedFolder, TemporariesGoOnlyWhenTheirProcessHasEnded) {
  const test::ScratchDir d("owned_tmp");
  const std::string out = d / "out";
  resume::FolderRequest r = request(out, "study", {"jia.csv", "metadata.json"});
  resume::claim_folder(r);
  const long dead = test::folder_rule::ended_pid();
  const std::string mine = ".jia.csv.tmp-" + std::to_string(dead) + "-0";
  const std::string other = ".x.csv.tmp-" + std::to_string(dead) + "-0";  // of no name of the run's
  put(out + "/" + mine, "half");
  put(out + "/" + other, "someone's");
  const resume::FolderClaim c = resume::claim_folder(r);
  EXPECT_EQ(c.removed, std::vector<std::string>{mine});
  EXPECT_TRUE(fs::exists(out + "/" + other));
  // a running process's temporary of one of the run's names: refused, naming the process
  const std::string live = ".jia.csv.tmp-" + std::to_string(::getppid()) + "-3";
  put(out + "/" + live, "being written");
  const std::string why = refusal(r);
  EXPECT_NE(why.find("process " + std::to_string(::getppid()) + " is writing jia.csv there now"), std::string::npos) << why;
  EXPECT_EQ(slurp(out + "/" + live), "being written");
}

TEST(OwnedFolder, OneDestinationUnderItsSpellings) {
  const test::ScratchDir d("owned_dest");
  const std::string dir = d.path();
  fs::create_directories(dir + "/sub");
  const std::string r = dir + "/r.csv";
  const std::string rel = fs::relative(r, fs::current_path()).string();
  // the six spellings, the file not existing yet: plain, ./, sub/../, absolute, a link to it (dangling)
  fs::create_symlink("r.csv", dir + "/link.csv");
  const std::vector<std::string> spellings = {
      rel, "./" + rel, dir + "/sub/../r.csv", fs::absolute(r).string(), dir + "/link.csv", dir + "/./sub/.././r.csv"};
  for (const std::string& a : spellings)
    for (const std::string& b : spellings) EXPECT_TRUE(io::same_destination(a, b)) << a << " / " << b;
  EXPECT_EQ(io::destination(dir + "/link.csv"), fs::weakly_canonical(r).string());
  // and existing, with a hard link as the sixth
  put(r, "1\n");
  fs::create_hard_link(r, dir + "/hard.csv");
  for (const std::string& a : spellings) EXPECT_TRUE(io::same_destination(a, dir + "/hard.csv")) << a;
  EXPECT_FALSE(io::same_destination(r, dir + "/other.csv"));
  EXPECT_FALSE(io::same_destination(r, "-"));
  EXPECT_TRUE(io::same_destination("-", "/dev/stdout"));  // standard output under its names
  EXPECT_TRUE(io::same_destination("/dev/fd/1", "-"));
  // a link through a folder link: "lnk/../x" is the folder above the link's target
  fs::create_directories(dir + "/deep/a");
  fs::create_directory_symlink(dir + "/deep/a", dir + "/lnk");
  EXPECT_TRUE(io::same_destination(dir + "/lnk/../y.csv", dir + "/deep/y.csv"));
  EXPECT_FALSE(io::same_destination(dir + "/lnk/../y.csv", dir + "/y.csv"));
  // a user-named output through a dangling link lands where the link points (Links::follow)
  fs::create_symlink("made.csv", dir + "/to-made.csv");
  io::write_file(dir + "/to-made.csv", "x\n", io::Links::follow);
  EXPECT_EQ(slurp(dir + "/made.csv"), "x\n");
  EXPECT_TRUE(fs::is_symlink(dir + "/to-made.csv"));
}

}  // namespace
}  // namespace impact
