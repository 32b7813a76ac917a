#include "arg_parser.h"

#include <algorithm>

namespace kwb::cli {

ArgParser::ArgParser(std::string command, std::string synopsis, std::string description)
    : m_command(std::move(command)), m_synopsis(std::move(synopsis)), m_description(std::move(description))
{
}

void ArgParser::option(const std::string& name, const std::string& valueName, const std::string& help,
    const std::string& defaultValue)
{
    m_specs.push_back({name, valueName, help, defaultValue, false});
}

void ArgParser::repeatedOption(const std::string& name, const std::string& valueName, const std::string& help)
{
    m_specs.push_back({name, valueName, help, {}, true});
}

void ArgParser::flag(const std::string& name, const std::string& help)
{
    m_specs.push_back({name, {}, help, {}, false});
}

void ArgParser::positional(const std::string& name, const std::string& help)
{
    m_positionalHelp.emplace_back(name, help);
}

const ArgParser::Spec* ArgParser::find(const std::string& name) const
{
    for (const auto& s : m_specs)
        if (s.name == name) return &s;
    return nullptr;
}

bool ArgParser::parse(const std::vector<std::string>& args)
{
    bool onlyPositionals = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (onlyPositionals || a.size() < 2 || a[0] != '-' || a == "-") {
            m_positionals.push_back(a);
            continue;
        }
        if (a == "--") {
            onlyPositionals = true;
            continue;
        }
        if (a == "-h" || a == "--help") {
            m_help = true;
            return false;
        }
        std::string name = a.substr(a[1] == '-' ? 2 : 1);
        std::optional<std::string> inlineValue;
        if (auto eq = name.find('='); eq != std::string::npos) {
            inlineValue = name.substr(eq + 1);
            name.resize(eq);
        }
        const Spec* spec = find(name);
        if (!spec) {
            m_error = "unknown option --" + name;
            return false;
        }
        if (spec->valueName.empty()) {
            if (inlineValue) {
                m_error = "option --" + name + " takes no value";
                return false;
            }
            m_values[name].push_back("true");
            continue;
        }
        std::string v;
        if (inlineValue) v = *inlineValue;
        else if (i + 1 < args.size()) v = args[++i];
        else {
            m_error = "option --" + name + " needs a value (" + spec->valueName + ")";
            return false;
        }
        auto& slot = m_values[name];
        if (!spec->repeated) slot.clear();
        slot.push_back(v);
    }
    return true;
}

std::optional<std::string> ArgParser::value(const std::string& name) const
{
    if (auto it = m_values.find(name); it != m_values.end() && !it->second.empty()) return it->second.back();
    if (const Spec* s = find(name); s && !s->defaultValue.empty()) return s->defaultValue;
    return std::nullopt;
}

std::vector<std::string> ArgParser::values(const std::string& name) const
{
    if (auto it = m_values.find(name); it != m_values.end()) return it->second;
    return {};
}

bool ArgParser::isSet(const std::string& name) const
{
    return m_values.count(name) > 0;
}

std::string ArgParser::help() const
{
    std::string out = "Usage: " + m_synopsis + "\n\n" + m_description + "\n";
    if (!m_positionalHelp.empty()) {
        out += "\nArguments:\n";
        for (const auto& [n, h] : m_positionalHelp) out += "  " + n + std::string(n.size() < 22 ? 22 - n.size() : 1, ' ') + h + "\n";
    }
    out += "\nOptions:\n";
    for (const auto& s : m_specs) {
        std::string left = "  --" + s.name + (s.valueName.empty() ? "" : " " + s.valueName);
        left += std::string(left.size() < 26 ? 26 - left.size() : 1, ' ');
        out += left + s.help;
        if (!s.defaultValue.empty()) out += " (default: " + s.defaultValue + ")";
        if (s.repeated) out += " (repeatable)";
        out += "\n";
    }
    out += "  -h, --help                Show this help\n";
    if (!m_epilog.empty()) out += "\n" + m_epilog + "\n";
    return out;
}

std::vector<std::string> splitList(const std::string& text)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = text.find(',', start);
        const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!part.empty()) out.push_back(part);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

} // namespace kwb::cli
