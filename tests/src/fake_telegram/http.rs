//! The HTTP side: the endpoint, `getUpdates` long polling, request bodies
//! (JSON, url-encoded, multipart).

#[allow(clippy::wildcard_imports)]
use super::*;

// ---- HTTP ----

pub(super) async fn not_found() -> (StatusCode, Json<Value>) {
    let (status, body) = envelope(Err(Refusal {
        code: 404,
        description: "Not Found".to_owned(),
        retry_after: None,
    }));
    (status, Json(body))
}

pub(super) async fn endpoint(
    State(shared): State<Arc<Shared>>,
    Path((token, method)): Path<(String, String)>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, Json<Value>) {
    if !token.starts_with("bot") {
        return not_found().await;
    }
    if shared.world.lock().unwrap().hung {
        // A peer that accepts connections and never answers.
        return std::future::pending().await;
    }
    let at = Instant::now();
    let method = canonical_method(&method);
    let (params, files, answer) = match decode(&headers, &body, query.as_deref()) {
        Err(refusal) => (Map::new(), Vec::new(), Err(refusal)),
        Ok((params, files)) => {
            let injected = shared
                .world
                .lock()
                .unwrap()
                .injected_failure(&method, &params);
            let unreachable = match injected {
                Some(_) => None,
                None => unreachable_media(&params).await,
            };
            let answer = match injected.or(unreachable) {
                Some(refusal) => Err(refusal),
                None if method.eq_ignore_ascii_case("getUpdates") => {
                    get_updates(&shared, &params).await
                }
                None => shared.world.lock().unwrap().call(&method, &params, &files),
            };
            (params, files, answer)
        }
    };
    let refused = answer.is_err();
    let (status, body) = envelope(answer);
    let held = {
        let mut world = shared.world.lock().unwrap();
        world.calls.push(Call {
            method: method.clone(),
            params: Value::Object(params),
            at,
            refused,
            files,
            answer: body.clone(),
        });
        world.hold(&method)
    };
    match held {
        // Done, but the answer never leaves.
        Some(Held::Never) => return std::future::pending().await,
        Some(Held::For(delay)) => tokio::time::sleep(delay).await,
        None => {}
    }
    (status, Json(body))
}

/// Long poll: the confirmed updates are forgotten, then the call waits (at
/// most [`LONG_POLL_CAP`]) until an allowed update is there.
pub(super) async fn get_updates(shared: &Shared, params: &Map<String, Value>) -> Answer {
    let offset = params.get("offset").and_then(param_i64).unwrap_or(0);
    let limit = params
        .get("limit")
        .and_then(param_i64)
        .unwrap_or(100)
        .clamp(1, 100);
    let timeout_secs = params.get("timeout").and_then(param_i64).unwrap_or(0);
    let timeout = Duration::from_secs(u64::try_from(timeout_secs).unwrap_or(0)).min(LONG_POLL_CAP);
    let deadline = tokio::time::Instant::now() + timeout;
    {
        let mut world = shared.world.lock().unwrap();
        if let Some(allowed) = params.get("allowed_updates").and_then(Value::as_array) {
            world.allowed_updates = Some(
                allowed
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
            );
        }
        world.confirm(offset);
    }
    loop {
        let notified = shared.updates_ready.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let batch = shared
            .world
            .lock()
            .unwrap()
            .deliverable(usize::try_from(limit).unwrap_or(100));
        if !batch.is_empty() || tokio::time::Instant::now() >= deadline {
            return Ok(Value::Array(batch));
        }
        let _ = tokio::time::timeout_at(deadline, notified).await;
    }
}

/// Telegram's method names are case-insensitive and teloxide writes them
/// `SendMessage`: calls are recorded as `sendMessage`.
pub(super) fn canonical_method(method: &str) -> String {
    let mut chars = method.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_ascii_lowercase().to_string() + chars.as_str()
    })
}

/// A number, or a string holding one.
pub(super) fn param_i64(value: &Value) -> Option<i64> {
    value
        .as_i64()
        .or_else(|| value.as_str().and_then(|text| text.trim().parse().ok()))
}

/// A string, or a number written as one.
pub(super) fn param_string(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

// ---- request bodies ----

pub(super) type Decoded = (Map<String, Value>, Vec<UploadedFile>);

pub(super) fn decode(
    headers: &HeaderMap,
    body: &[u8],
    query: Option<&str>,
) -> Result<Decoded, Refusal> {
    let mut params = Map::new();
    let mut files = Vec::new();
    if let Some(query) = query {
        for (key, value) in url::form_urlencoded::parse(query.as_bytes()) {
            params.insert(key.to_string(), text_value(&key, &value));
        }
    }
    if body.is_empty() {
        return Ok((params, files));
    }
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("");
    let mime = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match mime.as_str() {
        "application/json" => match serde_json::from_slice::<Value>(body) {
            Ok(Value::Object(fields)) => params.extend(fields),
            _ => return Err(bad("can't parse JSON object")),
        },
        "application/x-www-form-urlencoded" => {
            for (key, value) in url::form_urlencoded::parse(body) {
                params.insert(key.to_string(), text_value(&key, &value));
            }
        }
        "multipart/form-data" => {
            let boundary = content_type
                .split(';')
                .filter_map(|part| part.trim().strip_prefix("boundary="))
                .next()
                .map(|boundary| boundary.trim_matches('"').to_owned())
                .ok_or_else(|| bad("multipart boundary is missing"))?;
            parse_multipart(body, &boundary, &mut params, &mut files)?;
        }
        _ => return Err(bad("unsupported content type")),
    }
    Ok((params, files))
}

/// A text field of a form: JSON when it looks like an object or array, a
/// number or boolean when it reads as one, a string otherwise (always a
/// string for free-text fields).
pub(super) fn text_value(key: &str, raw: &str) -> Value {
    if TEXT_FIELDS.contains(&key) {
        return json!(raw);
    }
    let trimmed = raw.trim();
    if (trimmed.starts_with('{') || trimmed.starts_with('['))
        && let Ok(value) = serde_json::from_str(trimmed)
    {
        return value;
    }
    if let Ok(number) = trimmed.parse::<i64>() {
        return json!(number);
    }
    match trimmed {
        "true" => json!(true),
        "false" => json!(false),
        _ => json!(raw),
    }
}

pub(super) fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|window| window == needle)
        .map(|at| at + from)
}

pub(super) fn parse_multipart(
    body: &[u8],
    boundary: &str,
    params: &mut Map<String, Value>,
    files: &mut Vec<UploadedFile>,
) -> Result<(), Refusal> {
    let delimiter = format!("--{boundary}").into_bytes();
    let mut starts = Vec::new();
    let mut from = 0;
    while let Some(at) = find(body, &delimiter, from) {
        starts.push(at);
        from = at + delimiter.len();
    }
    for pair in starts.windows(2) {
        let part = &body[pair[0] + delimiter.len()..pair[1]];
        let part = part.strip_prefix(b"\r\n").unwrap_or(part);
        let part = part.strip_suffix(b"\r\n").unwrap_or(part);
        let split = find(part, b"\r\n\r\n", 0).ok_or_else(|| bad("malformed multipart part"))?;
        let head = String::from_utf8_lossy(&part[..split]);
        let content = &part[split + 4..];
        let mut name = None;
        let mut file_name = None;
        let mut typed = false;
        for line in head.lines() {
            let lower = line.to_ascii_lowercase();
            if lower.starts_with("content-type:") && !lower.contains("text/plain") {
                typed = true;
            }
            if !lower.starts_with("content-disposition:") {
                continue;
            }
            for attribute in line.split(';').skip(1) {
                let Some((key, value)) = attribute.trim().split_once('=') else {
                    continue;
                };
                let value = value.trim().trim_matches('"').to_owned();
                match key.trim() {
                    "name" => name = Some(value),
                    "filename" => file_name = Some(value),
                    _ => {}
                }
            }
        }
        let name = name.ok_or_else(|| bad("multipart part without a name"))?;
        match std::str::from_utf8(content) {
            Ok(text) if file_name.is_none() && !typed => {
                params.insert(name.clone(), text_value(&name, text));
            }
            _ => files.push(UploadedFile {
                field: name,
                file_name,
                size: content.len(),
                bytes: content.to_vec(),
            }),
        }
    }
    Ok(())
}
