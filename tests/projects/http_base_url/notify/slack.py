"""A Slack client on httpx, its base URL given once, each method a relative path."""

from typing import Any, Dict

import httpx

BASE_URL = "https://slack.com/api"


class SlackClient:
    def __init__(self) -> None:
        self.client = httpx.AsyncClient(base_url=BASE_URL)

    async def post_message(self, *, token: str, channel: str, text: str) -> Dict[str, Any]:
        return await self._post("/chat.postMessage", token=token, json={"channel": channel, "text": text})

    async def list_channels(self, *, token: str) -> Dict[str, Any]:
        return await self._post("/conversations.list", token=token, json={})

    async def _post(self, path: str, *, token: str, json: Dict[str, Any]) -> Dict[str, Any]:
        response = await self.client.post(path, json=json, headers={"Authorization": f"Bearer {token}"})  # expect: IDM013
        response.raise_for_status()
        return response.json()


slack = SlackClient()
