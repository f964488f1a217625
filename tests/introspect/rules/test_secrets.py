"""Secrets in transcript text: each kind found, in plain text and in a JSON line; stand-ins left alone; masks.

Every secret here is made up when the tests run (seeded, so the same each time): real-shaped (the
prefix, length and alphabet of the real thing) but never a live credential, and never written into
the repository where another scanner would flag it.
"""

from __future__ import annotations

import random
import re
import string

import orjson
import pytest

from introspect.rules import secrets as secrets_module
from introspect.rules.secret_kinds import ASSIGNED, KINDS, entropy
from introspect.rules.secrets import (
    Secret,
    find_secrets,
    finding_key,
    fingerprint,
    mask,
    mask_line,
    mask_text,
)

RNG = random.Random(30)
ALNUM = string.ascii_letters + string.digits
UPPER32 = string.ascii_uppercase + "234567"
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def rand(n: int, alphabet: str = ALNUM) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


def pem() -> str:
    lines = [rand(64, B64) for _ in range(12)]
    return "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END RSA PRIVATE KEY-----"


def jwt() -> str:
    return "eyJhbGciOiJIUzI1NiJ9.eyJ" + rand(40, URLSAFE) + "." + rand(43, URLSAFE)


# kind → (the text around it, the secret). `{}` in the text is where the secret goes.
CASES = {
    "aws-access-key-id": ("aws_access_key_id = {}", "AKIA" + rand(16, UPPER32)),
    "aws-secret-key": ("aws_secret_access_key = {}", rand(40, B64)),
    "github-token (classic)": ("export GH_TOKEN={}", "ghp_" + rand(36)),
    "github-token (oauth)": ("token: {}", "gho_" + rand(36)),
    "github-token (fine-grained)": (
        "git push https://{}@github.com/o/r",
        "github_pat_" + rand(22) + "_" + rand(59),
    ),
    "gitlab-token": ("CI_TOKEN {} set", "glpat-" + rand(20, URLSAFE)),
    "slack-token": (
        "SLACK_BOT={} # bot",
        "xoxb-" + rand(12, string.digits) + "-" + rand(13, string.digits) + "-" + rand(24),
    ),
    "slack-webhook": (
        "curl -X POST https://{}",
        "hooks.slack.com/services/T" + rand(8, UPPER32) + "/B" + rand(10, UPPER32) + "/" + rand(24),
    ),
    "stripe-key (secret)": ("stripe.api_key = '{}'", "sk_live_" + rand(24)),
    "stripe-key (restricted)": ("key {} rotated", "rk_live_" + rand(99)),
    "openai-key (project)": ("OPENAI_API_KEY={}", "sk-proj-" + rand(120, URLSAFE)),
    "openai-key (legacy)": ('openai.api_key = "{}"', "sk-" + rand(48)),
    "anthropic-key": ("ANTHROPIC_API_KEY={}", "sk-ant-api03-" + rand(93, URLSAFE) + "AA"),
    "google-api-key": ("maps?key={}&q=x", "AIza" + rand(35, URLSAFE)),
    "private-key": ("cat id_rsa\n{}\n", pem()),
    "jwt": ("session={}", jwt()),
    "database-url (postgres)": ("DATABASE_URL=postgres://app:{}@db.internal:5432/app", rand(18)),
    "database-url (mysql)": ("mysql://root:{}@127.0.0.1/shop", rand(10) + "!9"),
    "database-url (mongodb+srv)": ("mongodb+srv://svc:{}@cluster0.ab12c.mongodb.net/db", rand(16)),
    "database-url (redis)": ("REDIS_URL=redis://:{}@cache:6379/0", rand(20)),
    "assignment (.env password)": ("DB_HOST=db\nDB_PASSWORD={}\nDB_PORT=5432", "Tr0ub4dor!3-" + rand(6)),
    "assignment (secret)": ("SECRET_KEY_BASE={}", rand(64, HEX)),
    "assignment (yaml token)": ('  api_token: "{}"', rand(32, ALNUM)),
    "npm-token": ("//registry.npmjs.org/:_authToken={}", "npm_" + rand(36)),
    "twilio-key": ("twilio api key {}", "SK" + rand(32, HEX)),
    "sendgrid-key": ("SENDGRID={}", "SG." + rand(22, URLSAFE) + "." + rand(43, URLSAFE)),
    "azure-storage-key": (
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={};EndpointSuffix=core.windows.net",
        rand(86, B64) + "==",
    ),
    "url-password": ("pip install -i https://deploy:{}@pypi.example-corp.io/simple pkg", rand(14) + "7a"),
    "authorization-header": ("curl -H 'Authorization: Bearer {}' https://api", rand(40, URLSAFE)),
    "huggingface-token": ("HF_TOKEN={}", "hf_" + rand(34)),
    "pypi-token": ("password = {}", "pypi-AgEIcHlwaS5vcmc" + rand(70, URLSAFE)),
    "digitalocean-token": ("doctl auth init -t {}", "dop_v1_" + rand(64, HEX)),
}
KIND_OF = {case: case.split(" (")[0] for case in CASES}


def found(text: str) -> list[tuple[str, str]]:
    return [(text[s.start : s.end], s.kind) for s in find_secrets(text)]


def test_it_knows_twenty_kinds_and_more():
    assert len(set(KIND_OF.values())) >= 20


@pytest.mark.parametrize("case", CASES)
def test_it_finds_each_kind_in_plain_text(case):
    around, secret = CASES[case]
    text = "before\n" + around.format(secret) + "\nafter"
    assert found(text) == [(secret, KIND_OF[case])]


@pytest.mark.parametrize("case", CASES)
def test_it_finds_each_kind_inside_a_json_line(case):
    # As a transcript stores a tool's output: one JSON line, newlines and quotes escaped.
    around, secret = CASES[case]
    output = "$ cat .env\n" + around.format(secret) + "\nexit 0"
    line = orjson.dumps({"type": "user", "toolUseResult": {"stdout": output}}).decode()
    (span,) = find_secrets(line)
    assert span.kind == KIND_OF[case]
    escaped = orjson.dumps(secret).decode()[1:-1]
    assert line[span.start : span.end] == escaped
    # One secret, one fingerprint, whichever form it was read in.
    assert span.fingerprint == find_secrets(output)[0].fingerprint == fingerprint(secret)


@pytest.mark.parametrize(
    "text",
    [
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "export GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "GITHUB_TOKEN=${GITHUB_TOKEN}",
        "token: ${{ secrets.GITHUB_TOKEN }}",
        "API_KEY=<your-api-key>",
        "OPENAI_API_KEY=sk-...",
        "DB_PASSWORD=changeme",
        "PASSWORD=your_password_here",
        "password = os.environ['DB_PASSWORD']",
        "secret = settings.SECRET_KEY",
        'token = request.headers.get("X-Token")',
        "DATABASE_URL=postgres://postgres:postgres@localhost:5432/app",
        "postgres://user:password@localhost/db",
        "postgres://app:${DB_PASSWORD}@db/app",
        "redis://:****@cache:6379",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "stripe.api_key = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc'",
        "-----BEGIN PRIVATE KEY-----\nMIIEvQ...\n-----END PRIVATE KEY-----",
        '"cache_creation_input_tokens": 123456789',
        "max_tokens=4096 tokenizer=cl100k_base",
        "PASSWORD_FILE=/run/secrets/db_password",
        "the password: correcthorsebatterystaple",
        "Authorization: Bearer $TOKEN",
        "git clone https://github.com/owner/repo.git",
        "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    ],
)
def test_it_leaves_placeholders_examples_and_code_alone(text):
    assert found(text) == []


def test_it_merges_overlapping_finds_into_one_span_of_the_more_specific_kind():
    key = "sk-proj-" + rand(80, URLSAFE)
    text = f"OPENAI_API_KEY={key}"
    assert found(text) == [(key, "openai-key")]


def test_it_merges_a_bearer_header_holding_a_jwt():
    token = jwt()
    text = f"-H 'Authorization: Bearer {token}'"
    assert found(text) == [(token, "jwt")]


def test_it_finds_two_secrets_of_one_text_in_order():
    a, b = "ghp_" + rand(36), "glpat-" + rand(20, URLSAFE)
    assert found(f"{a} and {b}") == [(a, "github-token"), (b, "gitlab-token")]


def test_a_mask_keeps_every_other_character_as_it_was():
    token = "ghp_" + rand(36)
    password = "Zq8!" + rand(12)
    line = orjson.dumps({"stdout": f"GH={token}\nDB_PASSWORD={password}\n— done ✓"}).decode()
    spans = find_secrets(line)
    masked = mask(line, spans)
    assert masked == line.replace(token, "ghp_…•••• (GitHub token, masked)").replace(
        password, "…•••• (secret assignment, masked)"
    )
    # Still one JSON line, its text masked.
    assert orjson.loads(masked)["stdout"].endswith("…•••• (secret assignment, masked)\n— done ✓")


def test_a_mask_keeps_a_public_prefix_only_and_nothing_of_a_password_a_private_key_or_a_jwt():
    key, token, anthropic = pem(), jwt(), "sk-ant-api03-" + rand(93, URLSAFE) + "AA"
    text = f"{key}\nsession={token}\npostgres://app:Hunter22xyz@db/app\n{anthropic}"
    assert mask(text, find_secrets(text)) == (
        "-----BEGIN RSA PRIVATE KEY-----…•••• (private key, masked)\n"
        "session=eyJ…•••• (JSON web token, masked)\n"
        "postgres://app:…•••• (database password, masked)@db/app\n"
        "sk-ant-api03-…•••• (Anthropic key, masked)"
    )


def test_a_false_positive_a_person_marked_stays_as_it_was():
    token, other = "ghp_" + rand(36), "ghp_" + rand(36)
    text = f"{token} {other}"
    allowed = {finding_key("github-token", fingerprint(token))}
    assert mask_text(text, allowed) == f"{token} ghp_…•••• (GitHub token, masked)"


def test_a_json_line_masked_stays_one_json_line():
    password = "Zq8!" + rand(12)
    line = orjson.dumps({"stdout": f'export "DB_PASSWORD={password}"\n✓'})
    masked = mask_line(line)
    assert password.encode() not in masked
    assert orjson.loads(masked)["stdout"].startswith('export "DB_PASSWORD=…••••')
    assert mask_line(b'{"a": "nothing"}') == b'{"a": "nothing"}'


def test_a_mask_of_no_spans_is_the_text():
    assert mask("nothing here", []) == "nothing here"


def test_a_span_says_what_it_is():
    (span,) = find_secrets("key ghp_" + rand(36))
    assert isinstance(span, Secret)
    assert span.label == "GitHub token"
    assert len(span.fingerprint) == 64


def test_entropy_is_low_for_words_and_high_for_random_tokens():
    assert entropy("password") < 3.0 < entropy(rand(20))


def test_it_keeps_positions_where_lower_casing_would_shift_them():
    # `İ` lower-cases to two characters; the span must still point at the password.
    password = "Qx7!" + rand(12)
    text = f"İstanbul ✓ DB_PASSWORD={password}"
    assert found(text) == [(password, "assignment")]


def test_it_reads_a_short_text_and_a_long_one_alike():
    token = "ghp_" + rand(36)
    assert found(f"t {token}") == [(token, "github-token")]
    assert found("lorem ipsum " * 100 + token) == [(token, "github-token")]


@pytest.mark.parametrize("window", [5, 9, 16, 31])
@pytest.mark.parametrize("prefix", ["", "İ ✓ "])
def test_a_long_text_lowered_a_window_at_a_time_gives_every_find_once(monkeypatch, window, prefix):
    # The folded anchors (`password`, `api_key`, `Bearer`) are searched in lowered windows of the
    # text: a seam may cut an anchor anywhere, and the finds must be those of the whole text at once.
    body = prefix + " ".join(CASES[name][0].format(CASES[name][1]) for name in sorted(CASES)) + " "
    text = "".join(body[i:] + body[:i] for i in range(0, 40, 7))  # the seams fall at other places
    whole = find_secrets(text)
    assert len(whole) >= len(CASES)
    monkeypatch.setattr(secrets_module, "FOLD_WINDOW", window)
    assert find_secrets(text) == whole
    if text.isascii():
        assert find_secrets(text, ascii_data=text.encode()) == whole


@pytest.mark.parametrize(
    "text",
    [
        'fetch(url, { credentials: "same-origin" })',
        'create_user("parity", password="parity-password")',
        'DJANGO_SECRET_KEY="fault-suite"',
    ],
)
def test_it_leaves_words_joined_by_dashes_alone(text):
    assert found(text) == []


def test_a_masked_text_holds_no_secret_any_more():
    text = f"GH={'ghp_' + rand(36)}\nDB_PASSWORD={'Zq8!' + rand(12)}\n{pem()}"
    masked = mask(text, find_secrets(text))
    assert find_secrets(masked) == []
    assert mask_text(masked) == masked  # masking twice changes nothing


@pytest.mark.parametrize(
    "text",
    [
        "token = _XRegExp$exec2[0];",
        "dollarToken = +dollarToken;",
        "MultiHostUrl('https://foo.com:123,foo:bar@bar.example.com')",
    ],
)
def test_it_leaves_code_and_multi_host_urls_alone(text):
    # Flagged in 28.6 MB of installed packages' code before these were told apart.
    assert found(text) == []


def test_it_finds_a_token_printed_in_colour():
    # A terminal's colour codes, raw in a decoded output and `\u001b`-escaped in its JSON line.
    token = "ghp_" + rand(36)
    coloured = f"GH_TOKEN=\x1b[1;32m{token}\x1b[0m"
    assert found(coloured) == [(token, "github-token")]
    assert found(orjson.dumps(coloured).decode()) == [(token, "github-token")]


def test_it_does_not_take_a_token_shape_out_of_a_longer_word():
    assert found("xghp_" + rand(36)) == []
    assert found("AKIA" + rand(16, UPPER32) + "Z") == []


@pytest.mark.parametrize(
    "name",
    ["DB_PASSWORD", "passwd", "Passphrase", "pwd", "client_secret", "GITHUB_TOKEN", "credentials", "api_key"],
)
@pytest.mark.parametrize(
    "between",
    [
        "=",
        " = ",
        ":",
        ": ",
        "\t=\t",
        ":=",
        " => ",
        "?=",
        '"="',
        "'='",
        "`=`",
        '\\": \\"',
        "s=",
        "_base=",
        "Value: ",
        "_VALUE=",
    ],
)
def test_it_finds_an_assignment_whatever_separator_and_suffix_follow_its_name(name, between):
    # The anchors are a name and the character after it (`token=`, `tokens`, `token\t`), so that
    # `tokenizer` or `passes` is never tried: every character a match allows there must be one.
    value = "Zq8!" + rand(16)
    assert found(f"x {name}{between}{value} y") == [(value, "assignment")]


@pytest.mark.parametrize(
    "text", ["passes=Zq8!abcdefgh", "tokenizer=Zq8!abcdefgh", "the token is Zq8!abcdefgh"]
)
def test_a_name_followed_by_more_of_a_word_is_no_assignment(text):
    assert found(text) == []


def test_a_cased_anchor_is_found_in_its_own_case_only():
    # One search of the lower-cased text finds `SK` and `sk` alike; the Twilio key is `SK` alone.
    key = rand(32, HEX)
    assert found(f"twilio SK{key}") == [(f"SK{key}", "twilio-key")]
    assert found(f"twilio sk{key}") == []
    assert found(f"twilio Sk{key}") == []


def every_place(text: str):
    """(kind, anchor's lower case, position) wherever one of a kind's anchors stands in `text`."""
    lowered = text.lower()
    for kind in KINDS:
        for anchor in kind.anchors:
            seen = lowered if kind.folded else text
            at = seen.find(anchor.lower() if kind.folded else anchor)
            while at >= 0:
                yield kind, anchor, at
                at = seen.find(anchor.lower() if kind.folded else anchor, at + 1)


def test_a_branch_matches_exactly_where_its_whole_pattern_does():
    # An assignment's pattern tried at `token…` is its `token` branch alone: the same match, or none.
    texts = [around.format(secret) for around, secret in CASES.values()]
    texts += [f"{name}{sep}Zq8!{rand(12)}" for name in ASSIGNED for sep in ("=", "s: ", "_value=", " is ")]
    texts += ["api_key=" + rand(20), "x-api-KEY: " + rand(20), "accesskey " + rand(20)]
    tried = 0
    for text in texts:
        for kind, anchor, at in every_place(text):
            whole = re.compile(kind.pattern).match(text, at - kind.offset)
            for prefix, branch in kind.branches:
                if anchor.startswith(prefix):
                    part = re.compile(branch).match(text, at - kind.offset)
                    assert (whole and whole.span(1)) == (part and part.span(1)), (text, anchor)
                    tried += 1
    assert tried > 40
