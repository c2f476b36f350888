package org.example.textkit;

import java.util.ArrayList;
import java.util.List;

public final class Csv {

    public static List<String> fields(String row) {
        List<String> result = new ArrayList<>();
        for (String field : row.split(",")) {
            result.add(field.trim());
        }
        return result;
    }
}
