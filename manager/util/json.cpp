#include "util/json.hpp"

#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

namespace cudnnenv {

namespace {

// Builds an ordered Json from nlohmann's SAX events: an object's members are
// appended as they come, and a key given twice is looked for once, when the
// object closes (a hash table of its members' places): linear time.
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
  static constexpr std::size_t k_empty_index = 0xFFFFFFFFu;

  // An object's vector of members itself: ordered_map's own insertion searches every key.
  static Members& members(Json& object) { return static_cast<Members&>(object.get_ref<Json::object_t&>()); }

  // A key given twice keeps its first place and takes its last value, as
  // nlohmann's parser does.
  static void merge_repeated_keys(Members& list) {
    // (An object of 2^32 members would be a 50 GB text: the reads are capped far below.)
    if (list.size() < 2 || list.size() >= k_empty_index) return;
    // Open addressing over the members' own keys: one probe sequence per key, no allocation per key.
    std::size_t capacity = 4;
    while (capacity < list.size() + list.size() / 2) capacity *= 2;
    constexpr std::uint32_t k_empty = ~std::uint32_t{0};
    std::vector<std::uint32_t> slots(capacity, k_empty);
    std::vector<std::uint32_t> first(list.size());  // each member: the index of the first with its key
    bool repeated = false;
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::size_t slot = std::hash<std::string_view>{}(list[i].first) & (capacity - 1);
      while (slots[slot] != k_empty && list[slots[slot]].first != list[i].first) slot = (slot + 1) & (capacity - 1);
      if (slots[slot] == k_empty) slots[slot] = static_cast<std::uint32_t>(i);
      first[i] = slots[slot];
      repeated = repeated || first[i] != i;
    }
    if (!repeated) return;
    std::vector<std::size_t> last(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) last[first[i]] = i;
    Members merged;
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (first[i] == i) merged.emplace_back(list[i].first, std::move(list[last[i]].second));
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
