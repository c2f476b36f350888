package org.example.textkit;

import java.util.Map;

public final class Query {

    public static String param(Map<String, String> params, String key) {
        String value = params.get(key);
        if (value == null) {
            value = "";
        }
        return value.trim();
    }
}
