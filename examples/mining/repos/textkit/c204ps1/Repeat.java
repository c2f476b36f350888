package org.example.textkit;

public final class Repeat {

    public static String times(String s, int count) {
        String result = "";
        for (int i = 0; i < count; i++) {
            result = result + s;
        }
        return result;
    }
}
