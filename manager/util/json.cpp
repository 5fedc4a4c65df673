#include "util/json.hpp"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

namespace cudnnenv {

namespace {

// Builds an ordered Json from nlohmann's SAX events: an object's members are
// appended as they come, and a key given twice is looked for once, when the
// object closes (one sort of its members' places).
class OrderedBuilder final : public nlohmann::json_sax<Json> {
 public:
  bool null() override { return put(Json(nullptr)); }
  bool boolean(bool value) override { return put(Json(value)); }
  bool number_integer(number_integer_t value) override { return put(Json(value)); }
  bool number_unsigned(number_unsigned_t value) override { return put(Json(value)); }
  bool number_float(number_float_t value, const string_t&) override { return put(Json(value)); }
  bool string(string_t& value) override { return put(Json(std::move(value))); }
  bool binary(binary_t& value) override { return put(Json::binary(std::move(value))); }
  bool start_object(std::size_t) override { return open(Json::object()); }
  bool key(string_t& value) override {
    m_key = std::move(value);
    return true;
  }
  bool end_object() override {
    merge_repeated_keys(members(*m_open.back()));
    m_open.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return open(Json::array()); }
  bool end_array() override {
    m_open.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    m_failed = true;
    return false;
  }

  Json result() && { return m_failed ? Json(Json::value_t::discarded) : std::move(m_root); }

 private:
  using Members = Json::object_t::Container;

  // An object's vector of members itself: ordered_map's own insertion searches every key.
  static Members& members(Json& object) { return static_cast<Members&>(object.get_ref<Json::object_t&>()); }

  // A key given twice keeps its first place and takes its last value, as
  // nlohmann's parser does. The members' places are sorted by (key, place):
  // O(n log n) comparisons whatever the keys are. A hash table would be
  // linear on average, but libstdc++'s string hash has a fixed seed, so a
  // crafted file of keys with one hash makes it quadratic.
  static void merge_repeated_keys(Members& list) {
    if (list.size() < 2) return;
    std::vector<std::size_t> order(list.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const int compared = list[a].first.compare(list[b].first);
      return compared != 0 ? compared < 0 : a < b;
    });
    // Each run of one key: its first place takes the run's last value; the others go.
    std::vector<bool> keep(list.size(), true);
    bool repeated = false;
    for (std::size_t run = 0; run < order.size();) {
      std::size_t end = run + 1;
      while (end < order.size() && list[order[end]].first == list[order[run]].first) ++end;
      if (end - run > 1) {
        repeated = true;
        list[order[run]].second = std::move(list[order[end - 1]].second);
        for (std::size_t i = run + 1; i < end; ++i) keep[order[i]] = false;
      }
      run = end;
    }
    if (!repeated) return;
    Members merged;
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (keep[i]) merged.emplace_back(std::move(list[i].first), std::move(list[i].second));
    }
    list.swap(merged);
  }

  // Places `value` where the next value goes; the place, which stays valid
  // while it is open (only the innermost open value grows).
  Json* place(Json value) {
    if (m_open.empty()) {
      m_root = std::move(value);
      return &m_root;
    }
    Json& top = *m_open.back();
    if (top.is_array()) {
      top.push_back(std::move(value));
      return &top.back();
    }
    Members& list = members(top);
    list.emplace_back(std::move(m_key), std::move(value));
    return &list.back().second;
  }
  bool put(Json value) {
    place(std::move(value));
    return true;
  }
  bool open(Json empty) {
    m_open.push_back(place(std::move(empty)));
    return true;
  }

  Json m_root;
  std::vector<Json*> m_open;
  std::string m_key;  // the key whose value comes next
  bool m_failed = false;
};

}  // namespace

Json parse_json(std::string_view text) {
  OrderedBuilder builder;
  try {
    if (!Json::sax_parse(text, &builder)) return Json(Json::value_t::discarded);
  } catch (const Json::exception&) {
    return Json(Json::value_t::discarded);
  }
  return std::move(builder).result();
}

}  // namespace cudnnenv
