// Reference tables generated from the code, so docs/model.md cannot drift from it.
#pragma once
#include <string>

namespace vtick {

// Markdown: cost tables per architecture, guest costs, KVM parameters, scenario keys.
std::string parameter_tables_markdown();

}  // namespace vtick
