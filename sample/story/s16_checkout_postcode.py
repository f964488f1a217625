"""Session S16: a postcode field on the checkout form. softwaredev/delivery/commits fires on the commit
prompts and is keyword-gated or a near-miss on the others ("which commit…", "save the work"), where a
`wip` commit is refused by the hook; softwaredev/code/testing fires on test prompts and is a near-miss
where the agent changed code and a test run failed; the design way fires on the form's structure."""

from __future__ import annotations

from sample.sessions import Session
from sample.specs import GATED, MISS, F
from sample.state import Home
from sample.timeline import SONNET, T

COMMITS = "softwaredev/delivery/commits"
TESTING = "softwaredev/code/testing"
DESIGN = "softwaredev/architecture/design"
FORM = "src/components/CheckoutForm.tsx"
VITEST = "pnpm vitest run"


def play(h: Home) -> None:
    s = Session(
        h,
        "S16",
        "web",
        T(9, 15, 40, 22),
        gen="new",
        model=SONNET,
        version="2.1.192",
        branch="feat/checkout-postcode",
        note="arms: commits fired, keyword-gated and a near-miss; testing fired and a near-miss",
    )
    s.start()
    s.prompt(
        "add a postcode field to the checkout form, with validation",
        fires=[F(DESIGN, "semantic:embedding:en", 0.5840)],
        steps=[
            ("read", FORM, {}),
            (
                "edit",
                FORM,
                "<AddressFields />",
                "<AddressFields />\n      <PostcodeField country={country} />",
                {},
            ),
        ],
        answer="`PostcodeField` validates by country with a pattern table.",
    )
    s.prompt(
        "write unit tests for the postcode validation",
        fires=[F(TESTING, "keyword")],
        steps=[
            ("write", "tests/checkout/postcode.test.ts", 'describe("postcode", () => {\n', {}),
            ("bash", VITEST, "Test Files  1 passed (1)\n     Tests  9 passed (9)", {}),
        ],
        answer="Nine cases, one per country pattern; they pass.",
    )
    s.prompt(
        "commit it",
        fires=[F(COMMITS, "keyword")],
        steps=[
            (
                "bash",
                "git commit -S -am 'feat(checkout): postcode field validated by country'",
                "[feat/checkout-postcode 71c0a9e] feat(checkout): postcode field validated by country",
                {},
            )
        ],
        answer="Committed.",
    )
    s.prompt(
        "which commit added the old zip code regex?",
        fires=[GATED(COMMITS, prob_en="0.0690", floor="0.1500")],
        steps=[("bash", "git log -S 'zipRe' --oneline", "3f9e1b2 checkout: US zip codes only", {})],
        answer="3f9e1b2, from the first checkout version: US only.",
    )
    s.prompt(
        "German postcodes have five digits, the pattern allows four",
        fires=[MISS(TESTING, "0.4390")],
        steps=[
            ("edit", "src/checkout/postcodes.ts", "DE: /^\\d{4,5}$/", "DE: /^\\d{5}$/", {}),
            ("bash!", VITEST, "FAIL  tests/checkout/form.test.tsx > renders\nSnapshot mismatched", {}),
        ],
        answer="Pattern fixed; the form snapshot no longer matches.",
    )
    s.prompt(
        "the snapshot is still failing",
        fires=[MISS(TESTING, "0.4510")],
        steps=[
            ("bash", f"{VITEST} -u tests/checkout/form.test.tsx", "Snapshots  1 updated", {}),
            ("bash", VITEST, "Test Files  4 passed (4)\n     Tests  31 passed (31)", {}),
        ],
        answer="Updated the snapshot after checking the diff: only the hint text changed.",
    )
    s.prompt(
        "save the work, I'll open the PR later",
        fires=[MISS(COMMITS, "0.4620")],
        steps=[
            (
                "bash!",
                "git commit -am 'wip'",
                "⧗   input: wip\n✖   subject may not be empty [subject-empty]\n✖   type may not be empty [type-empty]",
                {},
            )
        ],
        answer="The commit-msg hook refused `wip`.",
    )
    s.prompt(
        "no, write a proper conventional commit message",
        fires=[F(COMMITS, "keyword")],
        steps=[
            (
                "bash",
                "git commit -S -am 'fix(checkout): German postcodes are five digits'",
                "[feat/checkout-postcode 0b4d7aa] fix(checkout): German postcodes are five digits",
                {},
            )
        ],
        answer="Committed as `fix(checkout): …`.",
    )
    s.prompt(
        "the form also needs a country select before the postcode",
        fires=[F(DESIGN, "semantic:embedding:en", 0.5512)],
        steps=[
            (
                "edit",
                FORM,
                "<PostcodeField",
                "<CountrySelect value={country} onChange={setCountry} />\n      <PostcodeField",
                {},
            )
        ],
        answer="`CountrySelect` drives the postcode pattern; the country list is inline for now.",
    )
    s.prompt(
        "move the country list into its own module, not inline in the form",
        fires=[MISS(DESIGN, "0.4710")],
        steps=[
            ("write", "src/checkout/countries.ts", "export const COUNTRIES = [\n", {}),
            ("edit", FORM, "const COUNTRIES = [", 'import { COUNTRIES } from "../checkout/countries";', {}),
        ],
        answer="Moved to `src/checkout/countries.ts`.",
    )
    s.prompt(
        "squash the last two commits",
        fires=[F(COMMITS, "keyword")],
        steps=[
            (
                "bash",
                "git reset --soft HEAD~2 && git commit -S -m 'feat(checkout): postcode and country, validated'",
                "[feat/checkout-postcode 9a31f04] feat(checkout): postcode and country, validated",
                {},
            )
        ],
        answer="One commit now.",
    )
    s.prompt(
        "run the e2e suite",
        fires=[MISS(TESTING, "0.4020")],
        steps=[
            (
                "bash!",
                "pnpm playwright test checkout",
                "✘ checkout.spec.ts:14 fills the address\n"
                "  locator getByLabel('ZIP code') not found\n1 failed, 6 passed",
                {},
            )
        ],
        answer="One e2e spec fails: it looks for the old label.",
    )
    s.prompt(
        "the e2e spec uses the wrong label, it's Postcode now",
        fires=[MISS(TESTING, "0.4302")],
        steps=[
            ("edit", "e2e/checkout.spec.ts", "getByLabel('ZIP code')", "getByLabel('Postcode')", {}),
            ("bash", "pnpm playwright test checkout", "7 passed (12.4s)", {}),
        ],
        answer="Label updated; 7 passed.",
    )
    s.prompt(
        "write a test for the country select too",
        fires=[F(TESTING, "keyword")],
        steps=[
            ("write", "tests/checkout/country.test.tsx", 'it("switches the postcode pattern", () => {\n', {}),
            ("bash", VITEST, "Test Files  5 passed (5)\n     Tests  34 passed (34)", {}),
        ],
        answer="Added; 34 passed.",
    )
    s.prompt(
        "commit and push",
        fires=[F(COMMITS, "keyword")],
        steps=[
            (
                "bash",
                "git commit -S -am 'test(checkout): country select switches the postcode pattern'",
                "[feat/checkout-postcode c4e8b19] test(checkout): country select switches the postcode pattern",
                {},
            ),
            (
                "bash",
                "git push -u origin feat/checkout-postcode",
                "branch 'feat/checkout-postcode' set up",
                {},
            ),
        ],
        answer="Committed and pushed.",
    )
    s.prompt("thanks, that's it for today", answer="Have a good evening.")
    s.finish()
