#pragma once
// Small GNU-style argument parser for kwb's subcommands:
// --name VALUE, --name=VALUE, -h/--help, flags, and positionals.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kwb::cli {

class ArgParser {
public:
    ArgParser(std::string command, std::string synopsis, std::string description);

    void option(const std::string& name, const std::string& valueName, const std::string& help,
        const std::string& defaultValue = {});
    void repeatedOption(const std::string& name, const std::string& valueName, const std::string& help);
    void flag(const std::string& name, const std::string& help);
    void positional(const std::string& name, const std::string& help);
    void epilog(const std::string& text) { m_epilog = text; }

    // false: usage error (message in error()) or help requested (helpRequested()).
    bool parse(const std::vector<std::string>& args);

    std::string help() const;
    const std::string& error() const { return m_error; }
    bool helpRequested() const { return m_help; }

    std::optional<std::string> value(const std::string& name) const;
    std::vector<std::string> values(const std::string& name) const;
    bool isSet(const std::string& name) const;
    const std::vector<std::string>& positionals() const { return m_positionals; }

private:
    struct Spec {
        std::string name;
        std::string valueName; // empty: a flag
        std::string help;
        std::string defaultValue;
        bool repeated = false;
    };
    const Spec* find(const std::string& name) const;

    std::string m_command;
    std::string m_synopsis;
    std::string m_description;
    std::string m_epilog;
    std::vector<Spec> m_specs;
    std::vector<std::pair<std::string, std::string>> m_positionalHelp;
    std::map<std::string, std::vector<std::string>> m_values;
    std::vector<std::string> m_positionals;
    std::string m_error;
    bool m_help = false;
};

// Splits "a,b,c" into parts, dropping empty ones.
std::vector<std::string> splitList(const std::string& text);

} // namespace kwb::cli
