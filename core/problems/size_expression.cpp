#include "problems/size_expression.h"

#include <limits>

namespace kwb {

namespace {

bool isNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isNameChar(char c) { return isNameStart(c) || (c >= '0' && c <= '9'); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

// Recursive descent that evaluates as it parses. In collect mode names are
// recorded and arithmetic is not checked (values are placeholders).
class ExpressionParser {
public:
    ExpressionParser(std::string_view text, const SizeMap* sizes, std::vector<std::string>* names)
        : m_text(text), m_sizes(sizes), m_names(names) {}

    Result<std::int64_t> run()
    {
        if (m_text.size() > kMaxExpressionLength)
            return fail(0, "expression is longer than " + std::to_string(kMaxExpressionLength) + " characters");
        skipSpace();
        if (m_pos >= m_text.size()) return fail(m_pos, "empty expression");
        std::int64_t v = 0;
        if (!parseExpr(v)) return m_error;
        skipSpace();
        if (m_pos < m_text.size()) return fail(m_pos, std::string("unexpected '") + m_text[m_pos] + "'");
        return v;
    }

private:
    Status fail(std::size_t at, const std::string& reason)
    {
        SourcePosition where;
        where.column = static_cast<std::int64_t>(at) + 1;
        where.offset = static_cast<std::int64_t>(at);
        std::string shown(m_text.substr(0, 80));
        if (m_text.size() > 80) shown += "...";
        m_error = Status(ErrorCode::InvalidArgument,
            "size expression '" + shown + "', column " + std::to_string(at + 1) + ": " + reason, where);
        return m_error;
    }
    bool failed(std::size_t at, const std::string& reason)
    {
        (void)fail(at, reason);
        return false;
    }

    void skipSpace()
    {
        while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t')) ++m_pos;
    }
    bool peek(char c)
    {
        skipSpace();
        return m_pos < m_text.size() && m_text[m_pos] == c;
    }
    bool expect(char c)
    {
        if (!peek(c)) {
            if (m_pos >= m_text.size()) return failed(m_pos, std::string("expected '") + c + "' before the end");
            return failed(m_pos, std::string("expected '") + c + "', found '" + m_text[m_pos] + "'");
        }
        ++m_pos;
        return true;
    }

    bool arith(char op, std::int64_t a, std::int64_t b, std::int64_t& out, std::size_t at)
    {
        if (m_names) { // collect mode: the values are placeholders
            out = 1;
            return true;
        }
        bool overflow = false;
        switch (op) {
        case '+': overflow = __builtin_add_overflow(a, b, &out); break;
        case '-': overflow = __builtin_sub_overflow(a, b, &out); break;
        case '*': overflow = __builtin_mul_overflow(a, b, &out); break;
        case '/':
        case '%':
            if (b == 0) return failed(at, op == '/' ? "division by zero" : "remainder by zero");
            if (a == std::numeric_limits<std::int64_t>::min() && b == -1) overflow = true;
            else out = op == '/' ? a / b : a % b;
            break;
        default: return failed(at, "internal: unknown operator");
        }
        if (overflow) return failed(at, "integer overflow (64-bit)");
        return true;
    }

    bool parseExpr(std::int64_t& v)
    {
        if (++m_depth > kMaxExpressionDepth) return failed(m_pos, "nested deeper than " + std::to_string(kMaxExpressionDepth));
        if (!parseTerm(v)) return false;
        while (true) {
            skipSpace();
            if (m_pos >= m_text.size() || (m_text[m_pos] != '+' && m_text[m_pos] != '-')) break;
            const char op = m_text[m_pos];
            const std::size_t at = m_pos++;
            std::int64_t rhs = 0;
            if (!parseTerm(rhs)) return false;
            if (!arith(op, v, rhs, v, at)) return false;
        }
        --m_depth;
        return true;
    }

    bool parseTerm(std::int64_t& v)
    {
        if (!parseUnary(v)) return false;
        while (true) {
            skipSpace();
            if (m_pos >= m_text.size() || (m_text[m_pos] != '*' && m_text[m_pos] != '/' && m_text[m_pos] != '%')) break;
            const char op = m_text[m_pos];
            const std::size_t at = m_pos++;
            std::int64_t rhs = 0;
            if (!parseUnary(rhs)) return false;
            if (!arith(op, v, rhs, v, at)) return false;
        }
        return true;
    }

    bool parseUnary(std::int64_t& v)
    {
        skipSpace();
        if (m_pos < m_text.size() && (m_text[m_pos] == '-' || m_text[m_pos] == '+')) {
            const char op = m_text[m_pos];
            const std::size_t at = m_pos++;
            if (++m_depth > kMaxExpressionDepth) return failed(at, "nested deeper than " + std::to_string(kMaxExpressionDepth));
            if (!parseUnary(v)) return false;
            --m_depth;
            if (op == '-') return arith('-', 0, v, v, at);
            return true;
        }
        return parsePrimary(v);
    }

    bool parsePrimary(std::int64_t& v)
    {
        skipSpace();
        if (m_pos >= m_text.size()) return failed(m_pos, "expression ends early");
        const char c = m_text[m_pos];
        if (c == '(') {
            ++m_pos;
            if (!parseExpr(v)) return false;
            return expect(')');
        }
        if (isDigit(c)) {
            const std::size_t at = m_pos;
            std::int64_t n = 0;
            while (m_pos < m_text.size() && isDigit(m_text[m_pos])) {
                if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, m_text[m_pos] - '0', &n))
                    return failed(at, "integer literal does not fit in 64 bits");
                ++m_pos;
            }
            if (m_pos < m_text.size() && (isNameChar(m_text[m_pos]) || m_text[m_pos] == '.'))
                return failed(m_pos, "only integer literals are allowed");
            v = n;
            return true;
        }
        if (isNameStart(c)) {
            const std::size_t at = m_pos;
            while (m_pos < m_text.size() && isNameChar(m_text[m_pos])) ++m_pos;
            const std::string_view name = m_text.substr(at, m_pos - at);
            if (peek('(')) return parseCall(name, at, v);
            if (m_names) {
                m_names->emplace_back(name);
                v = 1;
                return true;
            }
            auto it = m_sizes ? m_sizes->find(name) : SizeMap::const_iterator{};
            if (!m_sizes || it == m_sizes->end()) return failed(at, "unknown size '" + std::string(name) + "'");
            v = it->second;
            return true;
        }
        return failed(m_pos, std::string("unexpected '") + c + "'");
    }

    bool parseCall(std::string_view fn, std::size_t at, std::int64_t& v)
    {
        if (fn != "ceil_div" && fn != "min" && fn != "max")
            return failed(at, "unknown function '" + std::string(fn) + "' (ceil_div, min, max)");
        ++m_pos; // '('
        std::int64_t a = 0;
        std::int64_t b = 0;
        if (!parseExpr(a)) return false;
        if (!expect(',')) return false;
        if (!parseExpr(b)) return false;
        if (peek(',')) return failed(m_pos, std::string(fn) + " takes two arguments");
        if (!expect(')')) return false;
        if (m_names) {
            v = 1;
            return true;
        }
        if (fn == "min") v = a < b ? a : b;
        else if (fn == "max") v = a > b ? a : b;
        else {
            if (b <= 0) return failed(at, "ceil_div by a divisor <= 0");
            // a / b rounded up, also for negative a, without overflow.
            v = a / b + ((a % b != 0 && a > 0) ? 1 : 0);
        }
        return true;
    }

    std::string_view m_text;
    const SizeMap* m_sizes;
    std::vector<std::string>* m_names;
    std::size_t m_pos = 0;
    int m_depth = 0;
    Status m_error;
};

} // namespace

Result<std::int64_t> evaluateSizeExpression(std::string_view expression, const SizeMap& sizes)
{
    return ExpressionParser(expression, &sizes, nullptr).run();
}

Result<std::vector<std::string>> sizeExpressionNames(std::string_view expression)
{
    std::vector<std::string> names;
    auto r = ExpressionParser(expression, nullptr, &names).run();
    if (!r) return r.status();
    return names;
}

} // namespace kwb
