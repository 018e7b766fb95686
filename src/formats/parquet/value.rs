//! One cell of an Arrow array as a JSON value: how a row's messages reach the chat readers,
//! which already know every shape of message (`content` as text or parts, `tool_calls`,
//! `tool_call_id`). Types a message never holds (dates, binary, maps) read as null.

use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_schema::DataType;
use serde_json::{Map, Number, Value};

/// The value at `row` of `array`.
pub fn value_at(array: &dyn Array, row: usize) -> Value {
    if row >= array.len() || array.is_null(row) {
        return Value::Null;
    }
    match array.data_type() {
        DataType::Utf8 => text(array.as_string_opt::<i32>().map(|a| a.value(row))),
        DataType::LargeUtf8 => text(array.as_string_opt::<i64>().map(|a| a.value(row))),
        DataType::Utf8View => text(array.as_string_view_opt().map(|a| a.value(row))),
        DataType::Boolean => array
            .as_boolean_opt()
            .map_or(Value::Null, |a| Value::Bool(a.value(row))),
        DataType::Int8 => int(array.as_primitive_opt::<Int8Type>().map(|a| a.value(row))),
        DataType::Int16 => int(array.as_primitive_opt::<Int16Type>().map(|a| a.value(row))),
        DataType::Int32 => int(array.as_primitive_opt::<Int32Type>().map(|a| a.value(row))),
        DataType::Int64 => int(array.as_primitive_opt::<Int64Type>().map(|a| a.value(row))),
        DataType::UInt8 => int(array.as_primitive_opt::<UInt8Type>().map(|a| a.value(row))),
        DataType::UInt16 => int(array.as_primitive_opt::<UInt16Type>().map(|a| a.value(row))),
        DataType::UInt32 => int(array.as_primitive_opt::<UInt32Type>().map(|a| a.value(row))),
        DataType::UInt64 => array
            .as_primitive_opt::<UInt64Type>()
            .map_or(Value::Null, |a| Value::Number(a.value(row).into())),
        DataType::Float32 => float(
            array
                .as_primitive_opt::<Float32Type>()
                .map(|a| f64::from(a.value(row))),
        ),
        DataType::Float64 => float(
            array
                .as_primitive_opt::<Float64Type>()
                .map(|a| a.value(row)),
        ),
        DataType::List(_) => array
            .as_list_opt::<i32>()
            .map_or(Value::Null, |a| list(a.value(row).as_ref())),
        DataType::LargeList(_) => array
            .as_list_opt::<i64>()
            .map_or(Value::Null, |a| list(a.value(row).as_ref())),
        DataType::Struct(fields) => {
            let Some(s) = array.as_struct_opt() else {
                return Value::Null;
            };
            let object: Map<String, Value> = fields
                .iter()
                .zip(s.columns())
                .map(|(f, c)| (f.name().clone(), value_at(c.as_ref(), row)))
                .collect();
            Value::Object(object)
        }
        _ => Value::Null,
    }
}

fn list(items: &dyn Array) -> Value {
    Value::Array((0..items.len()).map(|i| value_at(items, i)).collect())
}

fn text(value: Option<&str>) -> Value {
    value.map_or(Value::Null, |s| Value::String(s.to_string()))
}

fn int(value: Option<impl Into<i64>>) -> Value {
    value.map_or(Value::Null, |v| {
        let n: i64 = v.into();
        Value::Number(n.into())
    })
}

fn float(value: Option<f64>) -> Value {
    value
        .and_then(Number::from_f64)
        .map_or(Value::Null, Value::Number)
}

/// A cell as a verdict: a boolean, a number (above 0: resolved; 0: not; below: unknown, as
/// datasets mark an unevaluated row with -1), or a word.
pub fn verdict(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => n.as_f64().and_then(|f| {
            if f > 0.0 {
                Some(true)
            } else if f == 0.0 {
                Some(false)
            } else {
                None
            }
        }),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "1" | "resolved" | "pass" | "passed" => Some(true),
            "false" | "no" | "0" | "unresolved" | "fail" | "failed" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// A cell as text: strings as they are, numbers written out, nothing for null or empty.
pub fn label(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{BooleanArray, Int64Array, ListArray, StringArray, StructArray};
    use arrow_schema::Field;
    use std::sync::Arc;

    #[test]
    fn lists_of_structs_become_arrays_of_objects() {
        let roles: Arc<dyn Array> = Arc::new(StringArray::from(vec!["user", "assistant", "tool"]));
        let texts: Arc<dyn Array> =
            Arc::new(StringArray::from(vec![Some("fix it"), None, Some("ok")]));
        let structs = StructArray::from(vec![
            (Arc::new(Field::new("role", DataType::Utf8, true)), roles),
            (Arc::new(Field::new("content", DataType::Utf8, true)), texts),
        ]);
        let item = Arc::new(Field::new("element", structs.data_type().clone(), true));
        let mut offsets = arrow_array::builder::OffsetBufferBuilder::<i32>::new(2);
        offsets.push_length(2);
        offsets.push_length(1);
        let offsets = offsets.finish();
        let lists = ListArray::new(item, offsets, Arc::new(structs), None);
        assert_eq!(
            value_at(&lists, 0),
            serde_json::json!([
                {"role": "user", "content": "fix it"},
                {"role": "assistant", "content": null}
            ])
        );
        assert_eq!(
            value_at(&lists, 1),
            serde_json::json!([{"role": "tool", "content": "ok"}])
        );
        assert_eq!(value_at(&lists, 2), Value::Null);
    }

    #[test]
    fn verdicts_from_booleans_numbers_and_words() {
        let b = BooleanArray::from(vec![Some(true), None]);
        assert_eq!(verdict(&value_at(&b, 0)), Some(true));
        assert_eq!(verdict(&value_at(&b, 1)), None);
        let n = Int64Array::from(vec![1, 0, -1]);
        let got: Vec<_> = (0..3).map(|i| verdict(&value_at(&n, i))).collect();
        assert_eq!(got, [Some(true), Some(false), None]);
        assert_eq!(verdict(&Value::String("Resolved".into())), Some(true));
    }
}
