"""What the sample's tools show: the file a Read returns, by extension, and a pytest summary line."""

from __future__ import annotations

import re

CODE = {
    ".py": [
        "from __future__ import annotations",
        "",
        "import time",
        "from dataclasses import dataclass",
        "",
        "",
        "@dataclass",
        "class Bucket:",
        "    capacity: int",
        "    tokens: float",
        "    updated: float",
        "",
        "    def take(self, now: float) -> bool:",
        "        self.refill(now)",
        "        if self.tokens < 1:",
        "            return False",
        "        self.tokens -= 1",
        "        return True",
    ],
    ".tsx": [
        'import { useState } from "react";',
        'import { useSession } from "../hooks/useSession";',
        "",
        "export function LoginForm() {",
        '  const [email, setEmail] = useState("");',
        "  const { login, error } = useSession();",
        "  return (",
        "    <form onSubmit={() => login(email)}>",
        "      <input value={email} onChange={(e) => setEmail(e.target.value)} />",
        '      {error && <p role="alert">{error}</p>}',
        "    </form>",
        "  );",
        "}",
    ],
    ".ts": [
        "export async function request(path: string, init?: RequestInit) {",
        '  const res = await fetch(`/api${path}`, { credentials: "include", ...init });',
        "  if (res.status === 401) throw new SessionExpired();",
        "  return res.json();",
        "}",
    ],
    ".tf": [
        'module "db" {',
        '  source         = "./modules/db"',
        "  instance_class = var.db_instance_class",
        '  engine_version = "16.4"',
        "  multi_az       = true",
        "}",
    ],
    ".md": [
        "# Woche 45",
        "",
        "## Inbox",
        "- [ ] Umzugskartons bestellen",
        "- [ ] ADR zu Rate Limiting lesen",
        "",
        "## Notizen",
        "- Gespräch mit Jana über das Onboarding",
    ],
    ".yaml": [
        "apiVersion: apps/v1",
        "kind: Deployment",
        "metadata:",
        "  name: api-server",
        "spec:",
        "  replicas: 3",
    ],
    ".env": [
        "# copy to .env and fill in",
        "API_BASE_URL=http://localhost:8000",
        "API_SIGNING_KEY=",
        "REDIS_URL=redis://localhost:6379/0",
    ],
    ".toml": ["[project]", 'name = "api-server"', 'version = "2.4.0"', 'requires-python = ">=3.12"'],
    ".json": [
        "{",
        '  "name": "web-ui",',
        '  "scripts": {',
        '    "build": "vite build",',
        '    "test": "vitest run"',
        "  }",
        "}",
    ],
}


def ext(path: str) -> str:
    if re.search(r"(^|/)\.env", path):
        return ".env"
    m = re.search(r"(\.[a-z]+)$", path)
    return m.group(1) if m and m.group(1) in CODE else ".md"


def ok(n: int) -> str:
    return f"{'.' * min(n, 60)}\n{n} passed in {1 + n % 3}.{n % 10}{(n * 7) % 10}s"
