//! The chain stand-in's JSON-RPC 2.0: one request or a batch in, the
//! answers out, every id echoed; errors as the spec numbers them.

use serde_json::{Value, json};

use super::fixture::ChainFixture;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
/// What nodes answer when a call reverts.
const EXECUTION_REVERTED: i64 = 3;

const DECIMALS: &str = "313ce567";
const TOTAL_SUPPLY: &str = "18160ddd";
const BALANCE_OF: &str = "70a08231";
/// The stand-in's chain id (Base).
const CHAIN_ID: u64 = 8453;

/// Answers a request body: one answer, or an array for a batch.
pub fn answer_rpc(fixture: &ChainFixture, body: &str) -> Value {
    match serde_json::from_str::<Value>(body) {
        Ok(Value::Array(batch)) if batch.is_empty() => {
            error(Value::Null, INVALID_REQUEST, "empty batch")
        }
        Ok(Value::Array(batch)) => {
            Value::Array(batch.iter().map(|one| answer_one(fixture, one)).collect())
        }
        Ok(one) => answer_one(fixture, &one),
        Err(e) => error(Value::Null, PARSE_ERROR, &format!("parse error: {e}")),
    }
}

fn answer_one(fixture: &ChainFixture, request: &Value) -> Value {
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let (Some("2.0"), Some(method)) = (
        request.get("jsonrpc").and_then(Value::as_str),
        request.get("method").and_then(Value::as_str),
    ) else {
        return error(id, INVALID_REQUEST, "invalid request");
    };
    let params = request.get("params").cloned().unwrap_or(json!([]));
    let result = match method {
        "eth_chainId" => Ok(json!(format!("{CHAIN_ID:#x}"))),
        "eth_blockNumber" => Ok(json!(format!("{:#x}", fixture.block))),
        "eth_getCode" => get_code(fixture, &params),
        "eth_call" => call(fixture, &params),
        other => Err((
            METHOD_NOT_FOUND,
            format!("the method {other} does not exist/is not available"),
        )),
    };
    match result {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err((code, message)) => error(id, code, &message),
    }
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

type Answer = Result<Value, (i64, String)>;

fn invalid(what: &str) -> (i64, String) {
    (INVALID_PARAMS, format!("invalid params: {what}"))
}

fn address_param(value: Option<&Value>) -> Result<String, (i64, String)> {
    let text = value
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("expected an address"))?;
    let hex = text.strip_prefix("0x").unwrap_or("");
    if hex.len() != 40 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(invalid(&format!("`{text}` is not an address")));
    }
    Ok(text.to_ascii_lowercase())
}

fn get_code(fixture: &ChainFixture, params: &Value) -> Answer {
    let address = address_param(params.get(0))?;
    Ok(match fixture.token(&address) {
        // A few bytes of an ERC-20's runtime code.
        Some(_) => json!("0x6080604052348015600f57600080fd5b50"),
        None => json!("0x"),
    })
}

fn call(fixture: &ChainFixture, params: &Value) -> Answer {
    let call = params
        .get(0)
        .ok_or_else(|| invalid("expected a call object"))?;
    let to = address_param(call.get("to"))?;
    let data = call
        .get("data")
        .or_else(|| call.get("input"))
        .and_then(Value::as_str)
        .and_then(|d| d.strip_prefix("0x"))
        .ok_or_else(|| invalid("expected hex call data"))?;
    let Some(token) = fixture.token(&to) else {
        // A call to an address without code returns nothing.
        return Ok(json!("0x"));
    };
    if token.reverts {
        return Err((EXECUTION_REVERTED, "execution reverted".to_owned()));
    }
    let (selector, argument) = data.split_at(data.len().min(8));
    let value = match selector {
        DECIMALS => u128::from(token.decimals),
        TOTAL_SUPPLY => token.raw_supply(),
        BALANCE_OF if argument.len() == 64 => token.raw_balance(&format!("0x{}", &argument[24..])),
        BALANCE_OF => return Err(invalid("balanceOf takes one address word")),
        _ => return Err((EXECUTION_REVERTED, "execution reverted".to_owned())),
    };
    Ok(json!(format!("0x{value:064x}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> ChainFixture {
        ChainFixture::from_json(
            r#"{"api_key": "k", "tokens": [{"chain": "base",
                "address": "0x00000000000000000000000000000000000000aa", "name": "T",
                "symbol": "T", "decimals": 18, "total_supply": 1000, "deployer":
                "0x00000000000000000000000000000000000000d1", "balances": []}]}"#,
        )
        .unwrap_or_else(|e| unreachable!("{e}"))
    }

    #[test]
    fn ids_are_echoed_and_errors_numbered() {
        let f = fixture();
        let one = answer_rpc(
            &f,
            r#"{"jsonrpc":"2.0","id":"x7","method":"eth_blockNumber"}"#,
        );
        assert_eq!(one["id"], "x7");
        assert_eq!(one["result"], "0x121eac0");
        let unknown = answer_rpc(&f, r#"{"jsonrpc":"2.0","id":2,"method":"eth_mine"}"#);
        assert_eq!(unknown["error"]["code"], -32601);
        let bad = answer_rpc(
            &f,
            r#"{"jsonrpc":"2.0","id":3,"method":"eth_getCode","params":["0x12"]}"#,
        );
        assert_eq!(bad["error"]["code"], -32602);
        assert_eq!(answer_rpc(&f, "{oops")["error"]["code"], -32700);
        assert_eq!(
            answer_rpc(&f, r#"{"id":4,"method":"eth_chainId"}"#)["error"]["code"],
            -32600
        );
    }

    #[test]
    fn a_batch_answers_each_request() {
        let f = fixture();
        let batch = answer_rpc(
            &f,
            r#"[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},
                {"jsonrpc":"2.0","id":2,"method":"nope"}]"#,
        );
        assert_eq!(batch[0]["result"], "0x2105");
        assert_eq!(batch[1]["error"]["code"], -32601);
    }
}
