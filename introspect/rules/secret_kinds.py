"""The kinds of secret the scanner knows: one regular expression each, and what makes a match a real one.

Modelled on how gitleaks and detect-secrets decide (read, not copied): a kind with a fixed prefix
(`ghp_`, `glpat-`, `sk-ant-`, `AKIA`, `AIza` …) is recognised by its shape alone; a value without one
(a password, an AWS secret key, an Azure account key) only beside a keyword that names it, and only
when it looks random (Shannon entropy, more than one class of character) and is no placeholder.

Transcripts hold text twice over: as the agent saw it (real newlines) and as the JSON line stores it
(`\\n`, `\\"`). Every pattern accepts both: a secret may follow a `\\n` escape (`ESCAPE_OR_BOUNDARY`),
a quote may be escaped, and no value's characters include a backslash, so an escape ends it.

`group` of a kind is the part that is secret: the password of a database URL, not its host; the value
of `PASSWORD=…`, not the name. `keep_tail` (long machine-made tokens, not what a person chose or what
has a fixed end) is no longer read: a mask keeps no character of the secret part (`secrets.marker`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

# The left edge of a token: no letter or digit right before it, or a JSON escape (`\n`, `\t`, `\r`) or
# a terminal colour (`ESC[32m`, `ESC[1;31m`) whose last letter would otherwise glue it to a word.
ESCAPE_OR_BOUNDARY = r"(?:(?<![A-Za-z0-9])|(?<=\\[nrt])|(?<=[\[;][0-9]m)|(?<=[\[;][0-9][0-9]m))"
END = r"(?![A-Za-z0-9])"
# What may open a value: a quote, an escaped quote (inside a JSON string), a backtick.
QUOTE = r"""(?:\\?["'`])?"""
# The characters of a free-form value: no whitespace, quote, backslash (an escape ends it), bracket
# or separator that would make it code or a list rather than a literal.
VALUE = r"""[^\s'"`\\,;<>(){}\[\]&|]"""


@dataclass(frozen=True, slots=True)
class Kind:
    name: str  # the slug a mask prints: `github-token`
    label: str  # what a person reads: "GitHub token"
    pattern: str
    # Where a match begins (`offset` characters before): the pattern is tried only where one of these
    # stands in the text (the lower-cased text when `folded`), so no regex scans the text. Each is as
    # long as every match makes it (`ghp_`, not `gh`; `tokens`, `token=`, not `token`): a shorter one
    # stands in many more places (`high`, `tokenizer`) and the pattern is tried in vain there.
    anchors: tuple[str, ...]
    folded: bool = False
    offset: int = 0
    keep_tail: bool = True
    min_entropy: float = 3.0  # bits per character of the secret part
    checked: bool = False  # a free-form value: must also look random (`looks_random`)
    # (prefix of anchors, pattern): where every match at such an anchor is one branch of `pattern`, that
    # branch alone (a failing try of the whole walked all its other branches, some 30 look-behinds).
    branches: tuple[tuple[str, str], ...] = ()


DATABASE_SCHEMES = (
    "postgres", "postgresql", "postgresql+asyncpg", "postgresql+psycopg", "postgresql+psycopg2", "mysql",
    "mysql+pymysql", "mysql+aiomysql", "mysql+mysqldb", "mariadb", "mssql", "mssql+pyodbc", "sqlserver", "oracle",
    "mongodb", "mongodb+srv", "redis", "rediss", "amqp", "amqps", "clickhouse", "cockroachdb", "couchdb", "neo4j",
    "neo4j+s", "bolt",
)  # fmt: skip
# What makes `key` a secret's name: `api_key`, `SECRET_KEY`, `signingKey`; a lone `key` names anything.
KEY_NAMES = "|".join(
    f"(?<={prefix}{sep})"
    for prefix in ("api", "access", "auth", "private", "secret", "signing", "encryption", "master", "account")
    for sep in ("", "_", "-")
)
SEPARATOR = QUOTE + r"[ \t]{0,3}(?:=|:=|:|=>|\?=)[ \t]{0,3}" + QUOTE  # `=`, `: `, `\": \"`, `=>`, `?=`
# No comma: `https://a.com:123,b:c@d` lists hosts (a multi-host URL), it has no password.
URL_USER = r"[^\s:/@'\"\\,]{0,64}"
URL_PASSWORD = r"([^\s/@'\"\\,]{1,128})"
# What may follow a folded kind's name, lower case: a separator's first character (a quote, maybe
# escaped; a blank; `=`, `:`, `?`) or a suffix's (`s`, `_base`, `base`, `_value`, `value`; to a case-blind
# pattern `ſ` is an `s`, and it lowers to itself).
SEPARATOR_STARTS = "\\\"'` \t=:?"
SUFFIX_STARTS = "s\u017f_bv"
# The names a secret's value is assigned to, by the anchor each begins with (`assignment`).
ASSIGNED = {
    "pass": r"pass(?:word|wd|phrase)?",
    "pwd": "pwd",
    "secret": "secret",
    "token": "token",
    "credential": "credentials?",
    "key": "(?:" + KEY_NAMES + ")key",
}
ASSIGNED_VALUE = r"(?i:s|_?base|_?value)?(?![A-Za-z0-9_])" + SEPARATOR + "(" + VALUE + r"{8,200})"


def followed(names, by: str) -> tuple[str, ...]:
    """Each of `names` followed by each character of `by`: anchors as long as a match makes them."""
    return tuple(name + after for name in names for after in by)


def token(name: str, label: str, pattern: str, anchors: tuple[str, ...], **options) -> Kind:
    """A kind recognised by its shape: a fixed prefix, then random characters, with no word around it."""
    return Kind(name, label, ESCAPE_OR_BOUNDARY + pattern + END, anchors, **options)


KINDS: tuple[Kind, ...] = (
    # Ordered most specific first: where two kinds cover the same characters, the earlier names them.
    Kind(
        "private-key",
        "private key",
        r"-----BEGIN[ A-Z0-9]{0,20}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[A-Za-z0-9+/=:, \t\r\n]|\\[nrt]|-(?!----)){16,16384}"
        r"(?:-----END[ A-Z0-9]{0,20}PRIVATE KEY(?: BLOCK)?-----)?",
        ("-----BEGIN",),
        keep_tail=False,
        min_entropy=0.0,
    ),
    token(
        "anthropic-key", "Anthropic key", r"sk-ant-[a-z]{2,10}[0-9]{0,3}-[A-Za-z0-9_-]{32,200}", ("sk-ant-",)
    ),
    token(
        "openai-key",
        "OpenAI key",
        r"sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,200}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|[A-Za-z0-9]{48})",
        ("sk-",),
    ),
    token(
        "github-token",
        "GitHub token",
        r"(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{50,251})",
        (*(f"gh{letter}_" for letter in "pousr"), "github_pat_"),
    ),
    token(
        "gitlab-token",
        "GitLab token",
        r"gl(?:pat|ptt|dt|rt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,300}",
        tuple(
            f"gl{name}-" for name in ("pat", "ptt", "dt", "rt", "cbt", "oas", "soat", "ft", "imt", "agent")
        ),
    ),
    token(
        "slack-token",
        "Slack token",
        r"(?:xox[abposre]-[0-9]{6,16}-[A-Za-z0-9-]{10,120}|xapp-[0-9]-[A-Z0-9]{6,16}-[0-9]{6,16}-[a-f0-9]{32,80})",
        (*(f"xox{letter}-" for letter in "abposre"), "xapp-"),
    ),
    Kind(
        "slack-webhook",
        "Slack webhook",
        r"hooks\.slack\.com/(?:services|workflows)/T[A-Z0-9]{6,12}/[A-Z0-9]{6,14}/[A-Za-z0-9]{20,32}" + END,
        ("hooks.slack.com/",),
    ),
    token(
        "stripe-key",
        "Stripe key",
        r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,247}",
        ("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
    ),
    token("google-api-key", "Google API key", r"AIza[A-Za-z0-9_-]{35}(?![_-])", ("AIza",)),
    token(
        "aws-access-key-id",
        "AWS access key ID",
        r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}",
        ("AKIA", "ASIA", "ABIA", "ACCA"),
    ),
    Kind(
        "aws-secret-key",
        "AWS secret access key",
        r"(?i:secret_?access_?key|(?<=aws_)secret_?key|(?<=aws)secret_?key)(?![A-Za-z0-9])"
        + SEPARATOR
        + r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        followed(["secret"], "_ak"),
        folded=True,
        keep_tail=False,
    ),
    Kind(
        "azure-storage-key",
        "Azure account key",
        r"(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{40,100}={0,2})",
        ("AccountKey=", "SharedAccessKey="),
        keep_tail=False,
    ),
    token("npm-token", "npm token", r"npm_[A-Za-z0-9]{36}", ("npm_",)),
    token("sendgrid-key", "SendGrid key", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![_-])", ("SG.",)),
    token("twilio-key", "Twilio API key", r"SK[0-9a-fA-F]{32}", followed(["SK"], "0123456789abcdefABCDEF")),
    token("huggingface-token", "Hugging Face token", r"hf_[A-Za-z0-9]{34,40}", ("hf_",)),
    token(
        "pypi-token",
        "PyPI token",
        r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,300}(?![_-])",
        ("pypi-AgEIcHlwaS5vcmc",),
    ),
    token(
        "digitalocean-token",
        "DigitalOcean token",
        r"do[opr]_v1_[a-f0-9]{64}",
        ("doo_v1_", "dop_v1_", "dor_v1_"),
    ),
    token(
        "jwt",
        "JSON web token",
        r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}(?![_-])",
        ("eyJ",),
        keep_tail=False,
    ),
    Kind(
        "database-url",
        "database password",
        # Begins at `://`, one anchor for every scheme, and reads the scheme behind it.
        r"(?i:"
        + "|".join(f"(?<={re.escape(scheme)})" for scheme in DATABASE_SCHEMES)
        + r")://"
        + URL_USER
        + ":"
        + URL_PASSWORD
        + "@",
        ("://",),
        keep_tail=False,
        min_entropy=0.0,
        checked=True,
    ),
    Kind(
        "url-password",
        "password in a URL",
        r"(?<=[a-z0-9])://" + URL_USER + ":" + URL_PASSWORD + "@[A-Za-z0-9.-]",
        ("://",),
        keep_tail=False,
        min_entropy=0.0,
        checked=True,
    ),
    Kind(
        "authorization-header",
        "authorization header",
        r"(?i:authorization)" + QUOTE + r"[ \t]{0,3}[:=][ \t]{0,3}" + QUOTE + r"(?i:bearer|basic|token)[ \t]+"
        r"([A-Za-z0-9._~+/-]{16,4096}={0,2})",
        followed(["authorization"], SEPARATOR_STARTS),
        folded=True,
        keep_tail=False,
        checked=True,
    ),
    Kind(
        "assignment",
        "secret assignment",
        # The name ends in the keyword (`DB_PASSWORD`, `client_secret`, `GITHUB_TOKEN`), so `tokenizer` or
        # `PASSWORD_FILE` are no secret's name.
        "(?i:" + "|".join(ASSIGNED.values()) + ")" + ASSIGNED_VALUE,
        (*followed(["pass"], "wp"), *followed(ASSIGNED, SEPARATOR_STARTS + SUFFIX_STARTS)),
        folded=True,
        keep_tail=False,
        checked=True,
        # At `token…` the name can only be `token`: no other branch (nor their look-behinds) is tried.
        branches=tuple((name, f"(?i:{pattern})" + ASSIGNED_VALUE) for name, pattern in ASSIGNED.items()),
    ),
)

# Marks of a stand-in that no random token holds by chance: a run of x, an ellipsis, a template.
STAND_IN = re.compile(r"x{6,}|X{6,}|\*\*\*|\.\.\.|…|\$\{|\{\{|EXAMPLE|[Ee]xample")
# Words and shapes of a value written for a reader rather than a machine (docs, templates,
# .env.example files, defaults): checked on free-form values only, since a long random token holds a
# four-letter word by chance too often for these to rule one out.
PLACEHOLDER = re.compile(
    r"""(?ix)
    xxxx | ^\$ | \$\( | %\( | ^%[A-Z_]+%$ | ^\[ | ^__ | ^(.)\1+$ | 0123456 | 123456789 | abcdefgh | qwerty
    | sample | dummy | fake | placeholder | changeme | change_me | change-me | replace | redacted | secret_?here
    | your[_-] | ^my[_-]?(?:secret|password|token|key) | ^none$ | ^null$ | ^undefined$ | ^true$ | ^false$
    | ^(?:password|secret|token|passw0rd|p@ssw0rd|admin|root|test|postgres|mysql|redis|guest|pass|letmein)\d{0,4}$
    """
)
# Published example values (AWS's documentation keys, jwt.io's token, Stripe's docs test key, Azurite's
# well-known account key): counted as examples wherever they appear.
KNOWN_EXAMPLES = frozenset(
    {
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    }
)
KNOWN_EXAMPLE_PARTS = ("SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",)  # jwt.io's signature
# A value that names code rather than holding a literal: `settings.SECRET_KEY`, `os.environ`, `getToken`,
# `_cache$2`, `+dollarToken` (an identifier with no digit, a dotted path, a private or `$` name, maybe
# behind a unary operator).
CODE_REFERENCE = re.compile(
    r"[-+!~*&]?(?:[A-Za-z_$][A-Za-z_$]*(?:\.[A-Za-z_$][\w$]*)*|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+|[_$][\w$]*)"
)


# Words joined by dashes or underscores (`same-origin`, `parity-password`, `github-token`): a name or a
# setting, not a secret. (A diceware passphrase of lower-case words is missed for it.)
WORDS = re.compile(r"[a-z]+(?:[-_.][a-z]+)*|[A-Z]+(?:[-_.][A-Z]+)*")


def entropy(text: str) -> float:
    """Shannon entropy in bits per character: ~4.2 for a random 20-character alphanumeric, ~2.5 for a word."""
    if not text:
        return 0.0
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


def is_example(value: str, free_form: bool) -> bool:
    """A documented example or a stand-in (`xxxxxx`, `${VAR}`, `…EXAMPLE`; free-form also `changeme`)."""
    if value in KNOWN_EXAMPLES or any(part in value for part in KNOWN_EXAMPLE_PARTS):
        return True
    if STAND_IN.search(value):
        return True
    return free_form and PLACEHOLDER.search(value) is not None


def looks_random(value: str, user: str = "") -> bool:
    """A free-form value that is a literal a person or machine chose, not a name, a word or a default.

    Two classes of character at least (lower, upper, digit, symbol), not an identifier or dotted path
    (code that reads the secret from elsewhere), not words joined by dashes, not the user name again
    (`postgres:postgres@`).
    """
    if value == user or CODE_REFERENCE.fullmatch(value) or WORDS.fullmatch(value):
        return False
    classes = (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() for c in value)
    )
    return classes >= 2 and value.lower() != value.upper()


def plausible(kind: Kind, secret: str, user: str = "") -> bool:
    """Whether a match of `kind` is a secret: not an example, random enough, and (free-form) a literal."""
    if is_example(secret, kind.checked):
        return False
    if kind.checked and not looks_random(secret, user):
        return False
    return entropy(secret) >= kind.min_entropy
