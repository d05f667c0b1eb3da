"""Checks of the cover service's MCP connector with the official MCP Python SDK (PyPI `mcp`,
pinned by tests/common/mod.rs), run by tests/covers_mcp.rs.

Usage: python connector.py tools|oauth|security CONFIG.json
Prints one line per check ("ok - ..."); exits 1 on the first failure.
"""

import base64
import hashlib
import json
import secrets
import subprocess
import sys
import time
import urllib.parse

import anyio
import httpx2
import jsonschema
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

CONFIG = json.load(open(sys.argv[2]))
BASE = CONFIG["base"]
MCP = BASE + "/mcp"
EXPECTED_TOOLS = [
    "list_formats", "describe_format", "list_decals", "get_content", "search_content", "compose_design",
    "get_account", "upload_image", "list_uploads", "delete_upload", "save_design", "list_designs",
    "get_design", "delete_design", "export_design", "get_export",
]
SIGNED_OUT = EXPECTED_TOOLS[:6]
MODES = {"legacy": "2025-11-25", "auto": "2026-07-28"}


def check(cond, what):
    if not cond:
        raise SystemExit("FAILED: " + what)
    print("ok - " + what, flush=True)


def connect(mode, token=None, auth=None):
    headers = {"Authorization": "Bearer " + token} if token else {}
    http = httpx2.AsyncClient(headers=headers, auth=auth, timeout=60)
    return Client(streamable_http_client(MCP, http_client=http), mode=mode)


class Session:
    """A connected client that validates every result against its tool's output schema."""

    def __init__(self, client, mode):
        self.client, self.mode, self.schemas, self.called = client, mode, {}, set()

    async def tools(self):
        listed = (await self.client.list_tools()).tools
        self.schemas = {t.name: t.output_schema for t in listed}
        return listed

    async def call(self, name, args, expect_error=None):
        result = await self.client.call_tool(name, args)
        self.called.add(name)
        if expect_error:
            check(result.is_error and result.structured_content["code"] == expect_error,
                  f"[{self.mode}] {name} fails as a tool error with {expect_error}")
            return result.structured_content
        if result.is_error:
            raise SystemExit(f"FAILED: [{self.mode}] {name}({args}) -> {result.structured_content}")
        jsonschema.validate(result.structured_content, self.schemas[name])
        text = result.content[0].text if result.content else ""
        check(isinstance(result.structured_content.get("applied"), list)
              and isinstance(result.structured_content.get("unsupported"), list) and text,
              f"[{self.mode}] {name}: structuredContent matches its output schema, with applied/unsupported and a summary ({text[:60]})")
        return result.structured_content


def png_bytes():
    """A small real PNG (a 64x48 gradient), written here."""
    import struct, zlib
    w, h = 64, 48
    raw = b"".join(b"\x00" + b"".join(bytes((x * 4 % 256, y * 5 % 256, 128)) for x in range(w)) for y in range(h))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


async def tools_checks():
    for mode, version in MODES.items():
        # ---- Signed out: the design tools work; account tools ask for sign-in.
        async with connect(mode) as client:
            s = Session(client, mode)
            check(client.protocol_version == version, f"[{mode}] negotiates protocol {version}")
            listed = await s.tools()
            check([t.name for t in listed] == EXPECTED_TOOLS, f"[{mode}] lists the 16 tools of the contract")
            check(all(t.description and t.input_schema.get("type") == "object" and t.output_schema for t in listed),
                  f"[{mode}] every tool has a description, an input schema and an output schema")
            formats = await s.call("list_formats", {})
            check(any(f["slug"] == "dvd-cover" for f in formats["items"]), f"[{mode}] list_formats has the DVD cover")
            geometry = await s.call("describe_format", {"slug": "jcard", "panels": 4})
            check(geometry["dpi"] == 600 and sorted(geometry["applied"]) == ["panels", "slug"], f"[{mode}] describe_format applies slug and panels")
            decals = await s.call("list_decals", {})
            check(any(d["id"] == "stickers/new" for d in decals["items"]), f"[{mode}] list_decals has stickers/new")
            found = await s.call("search_content", {"type": "movie", "query": "Metropolis 1927"})
            title = found["items"][0]
            check(title["title"] == "Metropolis", f"[{mode}] search_content finds Metropolis")
            content = await s.call("get_content", {"type": "movie", "id": title["id"].replace("movie/", "")})
            check(content["id"] == title["id"] and content["artwork"], f"[{mode}] get_content gives its artwork as decal ids")
            composed = await s.call("compose_design", {"format": "dvd-cover", "content": {"type": "movie", "query": "Metropolis 1927"},
                                                       "style": {"finish": "glossy-ish"}, "decals": [{"id": "stickers/new", "x": 70, "y": 20, "width": 12}]})
            check(composed["url"].startswith(BASE + "/design/") and any(u["field"] == "style.finish" for u in composed["unsupported"]),
                  f"[{mode}] compose_design returns the designer URL and reports the dropped finish")
            extra = await s.call("list_formats", {"colour": "red"})
            check(extra["unsupported"] == [{"field": "colour", "reason": "not an argument of list_formats"}],
                  f"[{mode}] an unknown argument is reported unsupported")
            await s.call("describe_format", {"slug": "nope"}, expect_error="NOT_FOUND")
            await s.call("compose_design", {"format": "dvd-cover", "decals": [{"id": "stickers/none"}]}, expect_error="UNKNOWN_DECAL")
            check(s.called >= set(SIGNED_OUT), f"[{mode}] every signed-out tool was called")
            refused = []
            for name in EXPECTED_TOOLS[6:]:
                try:
                    await client.call_tool(name, {})
                except Exception:  # the SDK turns the HTTP 401 challenge into an error
                    refused.append(name)
            check(refused == EXPECTED_TOOLS[6:], f"[{mode}] each of the 10 account tools called signed out is refused")
        async with httpx2.AsyncClient() as http:
            r = await http.post(MCP, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "save_design", "arguments": {}}},
                                headers={"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"})
            challenge = r.headers.get("www-authenticate", "")
            check(r.status_code == 401 and 'resource_metadata="' + BASE + "/.well-known/oauth-protected-resource/mcp" in challenge,
                  f"[{mode}] an account tool signed out gets the 401 challenge with the resource metadata ({challenge[:70]}…)")

        # ---- With a key: the conversation: search, compose, save, upload, place, export, poll, download.
        async with connect(mode, CONFIG["key"]) as client:
            s = Session(client, mode)
            await s.tools()
            account = await s.call("get_account", {})
            check(account["plan"] == "partner" and "composesLeft" in account["quotas"], f"[{mode}] get_account shows the plan and quotas")
            found = await s.call("search_content", {"query": "Metropolis 1927"})
            saved = await s.call("save_design", {"format": "dvd-cover", "name": f"Metropolis ({mode})",
                                                 "content": {"type": "movie", "query": found["items"][0]["title"] + " 1927"}})
            check(saved["designId"].startswith("des_") and saved["url"].endswith(saved["designId"]), f"[{mode}] save_design keeps the design")
            data = base64.b64encode(png_bytes()).decode()
            upload = await s.call("upload_image", {"name": "artwork.png", "mimeType": "image/png", "data": data})
            check(upload["ref"].startswith("upload:") and upload["width"] == 64, f"[{mode}] upload_image returns an upload ref")
            data_url = await s.call("upload_image", {"name": "second", "data": "data:image/png;base64," + data})
            placed = await s.call("save_design", {"format": "dvd-cover", "name": "With my art", "images": {"panels": {"front": {"ref": upload["ref"]}}},
                                                  "decals": [{"ref": data_url["ref"], "x": 20, "y": 80, "width": 10}]})
            check("images.panels.front" in placed["applied"], f"[{mode}] save_design places the upload on the front panel")
            uploads = await s.call("list_uploads", {"limit": 1})
            check(len(uploads["items"]) == 1 and uploads["nextCursor"], f"[{mode}] list_uploads pages with nextCursor")
            designs = await s.call("list_designs", {})
            check({d["designId"] for d in designs["items"]} >= {saved["designId"], placed["designId"]}, f"[{mode}] list_designs lists both")
            one = await s.call("get_design", {"designId": placed["designId"]})
            check(one["intent"]["images"]["panels"]["front"]["ref"] == upload["ref"], f"[{mode}] get_design returns the stored parameters")
            job = await s.call("export_design", {"designId": placed["designId"], "output": "png"})
            check(job["status"] == "queued", f"[{mode}] export_design queues a PNG")
            for _ in range(240):
                status = await s.call("get_export", {"jobId": job["jobId"]})
                if status["status"] not in ("queued", "running"):
                    break
                await anyio.sleep(0.5)
            check(status["status"] == "done" and status["file"]["mimeType"] == "image/png", f"[{mode}] get_export reaches done")
            async with httpx2.AsyncClient() as http:
                r = await http.get(status["file"]["url"])
            check(r.status_code == 200 and r.content[:8] == b"\x89PNG\r\n\x1a\n" and len(r.content) == status["file"]["bytes"],
                  f"[{mode}] the signed link downloads the PNG ({len(r.content)} bytes)")
            await s.call("delete_upload", {"id": upload["ref"]})
            await s.call("delete_upload", {"id": data_url["id"]})
            again = await s.call("get_design", {"designId": placed["designId"]})
            check(again["designId"] == placed["designId"], f"[{mode}] the design outlives its deleted uploads")
            await s.call("delete_design", {"designId": saved["designId"]})
            await s.call("delete_design", {"designId": placed["designId"]})
            await s.call("get_design", {"designId": saved["designId"]}, expect_error="NOT_FOUND")
            check(set(EXPECTED_TOOLS) - set(SIGNED_OUT) <= s.called, f"[{mode}] every account tool was called with a key")

        # ---- Plan and scope errors carry the REST codes.
        async with connect(mode, CONFIG["freeKey"]) as client:
            s = Session(client, mode)
            await s.tools()
            saved = await s.call("save_design", {"format": "cd-insert", "content": {"type": "album", "query": "Kind of Blue"}})
            await s.call("export_design", {"designId": saved["designId"], "output": "pdf"}, expect_error="TIER_REQUIRED")
            await s.call("delete_design", {"designId": saved["designId"]})
        async with connect(mode, CONFIG["readKey"]) as client:
            s = Session(client, mode)
            await s.tools()
            await s.call("get_account", {})
            await s.call("save_design", {"format": "cd"}, expect_error="FORBIDDEN_SCOPE")


async def security_checks():
    async with httpx2.AsyncClient() as http:
        # Host and Origin (DNS rebinding).
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        hdrs = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
        ok = await http.post(MCP, json=body, headers=hdrs)
        check(ok.status_code == 200, "a tools/list from the right host passes")
        evil_host = await http.post(MCP, json=body, headers={**hdrs, "Host": "evil.example"})
        check(evil_host.status_code in (400, 403, 421), f"a request for another Host is refused ({evil_host.status_code})")
        evil_origin = await http.post(MCP, json=body, headers={**hdrs, "Origin": "https://evil.example"})
        check(evil_origin.status_code == 403, f"a request from another Origin is refused ({evil_origin.status_code})")
        good_origin = await http.post(MCP, json=body, headers={**hdrs, "Origin": BASE})
        check(good_origin.status_code == 200, "a request from the service's own origin passes")

        # ---- The RFC side, by hand: a registered client, a browser session, codes and tokens.
        session = await signed_in(http)
        callback = "http://127.0.0.1:9/callback"
        r = await http.post(BASE + "/oauth/register", json={"client_name": "Hand-made client", "redirect_uris": [callback],
                                                            "token_endpoint_auth_method": "none"})
        check(r.status_code == 201 and r.json()["client_id"].startswith("cli_"), "dynamic registration (RFC 7591) answers 201 with a client_id")
        client_id = r.json()["client_id"]
        bad = await http.post(BASE + "/oauth/register", json={"client_name": "x", "redirect_uris": ["http://evil.example/cb"]})
        check(bad.status_code == 400 and bad.json()["error"] == "invalid_redirect_uri", "a plain-http, non-loopback redirect URI is refused at registration")

        def authorize_url(**extra):
            verifier = secrets.token_urlsafe(48)
            params = {"response_type": "code", "client_id": client_id, "redirect_uri": callback, "state": "s-" + secrets.token_hex(4),
                      "code_challenge": pkce(verifier), "code_challenge_method": "S256", "scope": "read design:write export",
                      "resource": MCP}
            params.update(extra)
            params = {k: v for k, v in params.items() if v is not None}
            return BASE + "/oauth/authorize?" + urllib.parse.urlencode(params), verifier, params.get("state")

        # PKCE is required, S256 only.
        url, _, state = authorize_url(code_challenge=None, code_challenge_method=None)
        r = await session.get(url)
        loc = urllib.parse.urlparse(r.headers.get("location", ""))
        check(r.status_code == 303 and loc.netloc == "127.0.0.1:9" and "error=invalid_request" in loc.query and f"state={state}" in loc.query,
              "an authorization request without PKCE goes back with invalid_request")
        url, _, _ = authorize_url(code_challenge_method="plain")
        r = await session.get(url)
        check("error=invalid_request" in r.headers.get("location", ""), "the plain PKCE method is refused")
        # Redirect URIs match exactly; an unknown client or address is never redirected to.
        for what, extra in [("a longer redirect URI", {"redirect_uri": callback + "/x"}),
                            ("another port", {"redirect_uri": "http://127.0.0.1:10/callback"}),
                            ("an unknown client", {"client_id": "cli_unknown", "redirect_uri": "https://evil.example/cb"})]:
            url, _, _ = authorize_url(**extra)
            r = await session.get(url)
            check(r.status_code == 400 and "location" not in r.headers, f"{what} gets an error page, no redirect (no open redirect)")
        url, _, _ = authorize_url(resource="https://other.example/mcp")
        r = await session.get(url)
        check("error=invalid_target" in r.headers.get("location", ""), "a token for another resource is refused (invalid_target)")
        # The approval page, then a code.
        url, verifier, state = authorize_url()
        r = await session.get(url)
        check(r.status_code == 200 and "Hand-made client" in r.text and "design:write" in r.text, "the approval page names the app and the scopes")
        csrf = field_value(r.text, "csrf")
        request = urllib.parse.urlparse(url).query
        forged = await session.post(BASE + "/oauth/authorize", data={"csrf": "x" * 43, "request": request, "decision": "approve"})
        check(forged.status_code == 403, "an approval without the session's CSRF token is refused")
        r = await session.post(BASE + "/oauth/authorize", data={"csrf": csrf, "request": request, "decision": "approve"})
        code, got_state, iss = callback_params(r.headers["location"])
        check(code and got_state == state and iss == BASE, "approving sends the browser back with the code, the state and iss")

        async def token(data):
            return await http.post(BASE + "/oauth/token", data=data)

        wrong = await token({"grant_type": "authorization_code", "code": code, "redirect_uri": callback, "client_id": client_id,
                             "code_verifier": secrets.token_urlsafe(48)})
        check(wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant", "a wrong PKCE verifier is refused")
        again = await token({"grant_type": "authorization_code", "code": code, "redirect_uri": callback, "client_id": client_id, "code_verifier": verifier})
        check(again.json().get("error") == "invalid_grant", "a code is used once, even after a failed attempt")

        async def fresh_code():
            url, verifier, _ = authorize_url()
            r = await session.get(url)  # approved before: straight back to the app
            check(r.status_code == 303 and "code=" in r.headers["location"], "a second authorization is answered at once (approved once)")
            return callback_params(r.headers["location"])[0], verifier

        code, verifier = await fresh_code()
        other_uri = await token({"grant_type": "authorization_code", "code": code, "redirect_uri": callback + "/x", "client_id": client_id,
                                 "code_verifier": verifier})
        check(other_uri.json().get("error") == "invalid_grant", "the token request's redirect_uri must be the authorization's")
        code, verifier = await fresh_code()
        r = await token({"grant_type": "authorization_code", "code": code, "redirect_uri": callback, "client_id": client_id, "code_verifier": verifier})
        tokens = r.json()
        check(r.status_code == 200 and tokens["access_token"].startswith("cvr_at_") and tokens["refresh_token"].startswith("cvr_rt_")
              and tokens["token_type"] == "Bearer" and r.headers.get("cache-control") == "no-store", "the code gives an access and a refresh token")
        check(await mcp_works(http, tokens["access_token"]), "the access token works on /mcp")
        rest = await http.get(BASE + "/api/v1/account", headers={"Authorization": "Bearer " + tokens["access_token"]})
        check(rest.status_code == 401, "the access token is refused by the REST routes (its audience is /mcp)")
        replay = await token({"grant_type": "authorization_code", "code": code, "redirect_uri": callback, "client_id": client_id, "code_verifier": verifier})
        check(replay.json().get("error") == "invalid_grant" and not await mcp_works(http, tokens["access_token"]),
              "a code used twice is refused and what it issued is revoked")
        # Codes are short-lived.
        code, verifier = await fresh_code()
        await anyio.sleep(CONFIG["codeSeconds"] + 1.5)
        late = await token({"grant_type": "authorization_code", "code": code, "redirect_uri": callback, "client_id": client_id, "code_verifier": verifier})
        check(late.json().get("error") == "invalid_grant", f"a code older than {CONFIG['codeSeconds']} s is refused")
        # Refresh tokens rotate; a reused one revokes the family.
        code, verifier = await fresh_code()
        first = (await token({"grant_type": "authorization_code", "code": code, "redirect_uri": callback, "client_id": client_id, "code_verifier": verifier})).json()
        second = (await token({"grant_type": "refresh_token", "refresh_token": first["refresh_token"], "client_id": client_id})).json()
        check(second.get("refresh_token") and second["refresh_token"] != first["refresh_token"] and await mcp_works(http, second["access_token"]),
              "a refresh gives a new pair (rotation)")
        reuse = await token({"grant_type": "refresh_token", "refresh_token": first["refresh_token"], "client_id": client_id})
        check(reuse.json().get("error") == "invalid_grant", "a used refresh token is refused")
        check(not await mcp_works(http, second["access_token"]), "its reuse revoked the whole family, the newer tokens too")
        later = await token({"grant_type": "refresh_token", "refresh_token": second["refresh_token"], "client_id": client_id})
        check(later.json().get("error") == "invalid_grant", "the family's refresh token is revoked as well")
        # Revocation (RFC 7009).
        code, verifier = await fresh_code()
        pair = (await token({"grant_type": "authorization_code", "code": code, "redirect_uri": callback, "client_id": client_id, "code_verifier": verifier})).json()
        r = await http.post(BASE + "/oauth/revoke", data={"token": pair["access_token"], "client_id": client_id})
        check(r.status_code == 200 and not await mcp_works(http, pair["access_token"]), "a revoked access token is refused at once")
        # A client metadata document (CIMD) as the client id.
        async with metadata_server() as doc_url:
            url, _, _ = authorize_url(client_id=doc_url, redirect_uri="http://127.0.0.1:9/cimd-callback")
            r = await session.get(url)
            check(r.status_code == 200 and "Document client" in r.text, "a client metadata document URL works as client_id, its name shown")
            url, _, _ = authorize_url(client_id=doc_url.replace("client.json", "liar.json"), redirect_uri="http://127.0.0.1:9/cimd-callback")
            r = await session.get(url)
            check(r.status_code == 400 and "location" not in r.headers, "a document whose client_id is not its own address is refused")


def pkce(verifier):
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def field_value(html, name):
    marker = f'name="{name}" value="'
    start = html.index(marker) + len(marker)
    return html[start:html.index('"', start)]


def callback_params(location):
    q = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(location).query))
    return q.get("code"), q.get("state"), q.get("iss")


async def signed_in(http):
    """A client with the account's browser session (sign-in form, CSRF cookie)."""
    session = httpx2.AsyncClient(follow_redirects=False)
    r = await session.get(BASE + "/signin")
    csrf = field_value(r.text, "csrf")
    r = await session.post(BASE + "/signin", data={"csrf": csrf, "email": CONFIG["email"], "password": CONFIG["password"]})
    check(r.status_code == 303 and "covers_session" in session.cookies, "the test signs in over HTTP")
    return session


async def mcp_works(http, token):
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_account", "arguments": {}}}
    r = await http.post(MCP, json=body, headers={"Authorization": "Bearer " + token, "Accept": "application/json, text/event-stream",
                                                  "MCP-Protocol-Version": "2025-11-25"})
    return r.status_code == 200 and '"isError":false' in r.text.replace(" ", "")


class metadata_server:
    """A loopback HTTP server with two client metadata documents: one honest, one whose
    client_id names another address."""

    async def __aenter__(self):
        import http.server, threading
        port_box = {}

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                base = f"http://127.0.0.1:{port_box['port']}"
                own = base + self.path
                claimed = own if self.path == "/client.json" else base + "/client.json"
                body = json.dumps({"client_id": claimed, "client_name": "Document client",
                                   "redirect_uris": ["http://127.0.0.1:9/cimd-callback"]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        port_box["port"] = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{port_box['port']}/client.json"

    async def __aexit__(self, *exc):
        self.server.shutdown()


async def oauth_checks():
    from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    async with httpx2.AsyncClient() as http:
        prm = (await http.get(BASE + "/.well-known/oauth-protected-resource/mcp")).json()
        check(prm["resource"] == MCP and prm["authorization_servers"] == [BASE] and prm["bearer_methods_supported"] == ["header"],
              "protected-resource metadata (RFC 9728) names /mcp and this server")
        check((await http.get(BASE + "/.well-known/oauth-protected-resource")).json()["resource"] == MCP, "the unsuffixed form answers too")
        asm = (await http.get(BASE + "/.well-known/oauth-authorization-server")).json()
        check(asm["issuer"] == BASE and asm["code_challenge_methods_supported"] == ["S256"] and asm["client_id_metadata_document_supported"]
              and asm["registration_endpoint"].endswith("/oauth/register"), "authorization-server metadata (RFC 8414) offers PKCE S256, DCR and CIMD")

    class Memory:
        def __init__(self):
            self.tokens, self.client = None, None

        async def get_tokens(self):
            return self.tokens

        async def set_tokens(self, tokens):
            self.tokens = tokens

        async def get_client_info(self):
            return self.client

        async def set_client_info(self, info):
            self.client = info

    callback_base = "http://127.0.0.1:9/sdk-callback"
    seen = {}

    def browser(url, action="approve", app=None):
        cfg = {"tools": CONFIG["tools"], "url": url, "email": CONFIG["email"], "password": CONFIG["password"],
               "callback": callback_base, "action": action, "app": app}
        path = CONFIG["workDir"] + "/consent.json"
        json.dump(cfg, open(path, "w"))
        out = subprocess.run(["node", CONFIG["consentScript"], path], capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise SystemExit("FAILED: the browser step failed: " + out.stderr[-2000:])
        return json.loads(out.stdout.strip().splitlines()[-1])

    async def redirect_handler(url):
        seen.update(await anyio.to_thread.run_sync(browser, url))

    async def callback_handler():
        code, state, iss = callback_params(seen.get("callback") or "")
        if not code:
            raise SystemExit(f"FAILED: the browser did not come back with a code: {seen}")
        return AuthorizationCodeResult(code=code, state=state, iss=iss)

    storage = Memory()
    metadata = OAuthClientMetadata(client_name="Test assistant", redirect_uris=[callback_base], grant_types=["authorization_code", "refresh_token"],
                                   response_types=["code"], token_endpoint_auth_method="none", scope="read design:write export")
    provider = OAuthClientProvider(server_url=MCP, client_metadata=metadata, storage=storage,
                                   redirect_handler=redirect_handler, callback_handler=callback_handler)
    async with connect("auto", auth=provider) as client:
        s = Session(client, "oauth")
        await s.tools()
        account = await s.call("get_account", {})
        check(account["id"] == CONFIG["accountId"], "the SDK's OAuth client signs in and calls an account tool")
        check(seen["consentShown"] and seen["appName"] == "Test assistant" and seen["scopes"] == ["read", "design:write", "export"],
              "the approval page in Chromium named the app and the three scopes")
        check(storage.client.client_id.startswith("cli_"), "the SDK registered itself dynamically (RFC 7591)")
        first = storage.tokens
        await anyio.sleep(CONFIG["accessSeconds"] + 1.5)
        again = await s.call("get_account", {})
        check(again["id"] == CONFIG["accountId"] and storage.tokens.refresh_token != first.refresh_token,
              "after the access token expires the SDK refreshes it and the refresh token rotates")
    # Approved once: a second sign-in of the same app skips the approval page.
    storage2 = Memory()
    storage2.client = storage.client
    seen.clear()
    provider2 = OAuthClientProvider(server_url=MCP, client_metadata=metadata, storage=storage2,
                                    redirect_handler=redirect_handler, callback_handler=callback_handler)
    async with connect("legacy", auth=provider2) as client:
        s = Session(client, "oauth-again")
        await s.tools()
        await s.call("list_designs", {})
        check(seen.get("consentShown") is False, "the same app signing in again is not asked again (approved once)")
    # Revocation through the SDK's token (RFC 7009), then disconnecting the app on the account page.
    async with httpx2.AsyncClient() as http:
        token = storage2.tokens.access_token
        check(await mcp_works(http, token), "the second sign-in's token works")
        result = await anyio.to_thread.run_sync(lambda: browser(BASE + "/account", action="disconnect", app="Test assistant"))
        check(result["before"] == 1 and result["after"] == 0, "the account page lists the connected app and disconnects it")
        check(not await mcp_works(http, token), "a disconnected app is refused at once")
        r = await http.post(BASE + "/oauth/token", data={"grant_type": "refresh_token", "refresh_token": storage2.tokens.refresh_token,
                                                          "client_id": storage.client.client_id})
        check(r.json().get("error") == "invalid_grant", "its refresh token is refused too")


if __name__ == "__main__":
    anyio.run({"tools": tools_checks, "security": security_checks, "oauth": oauth_checks}[sys.argv[1]])
