"""The model client: Chat Completions over HTTP (:mod:`.client`, :mod:`.wire`), the plain data of
requests and answers (:mod:`.chat_types`), model resolution and settings, attachments, and one
conversation with everything the settings offer (:mod:`.conversation`)."""
